"""``magnum-driver-manage``: inspect the installed cluster drivers."""

from __future__ import annotations

import argparse
import sys

from magnum_common.drivers import registry


def _list_drivers(args: argparse.Namespace) -> int:
    rows = []
    for name, driver in sorted(registry.all_drivers().items()):
        provides = "; ".join(f"{p.server_type}/{p.os}/{p.coe}" for p in driver.provides)
        paths = getattr(driver, "template_paths", lambda: [])()
        rows.append((name, provides, ", ".join(paths)))
    if not rows:
        print("No drivers are installed (entry points 'magnum.drivers').")
        return 1
    headers = ("name", "server_type/os/coe", "template path")
    shown = [r if (args.details or args.paths) else r[:2] for r in rows]
    headers = headers[:len(shown[0])]
    width = [max(len(h), *(len(r[i]) for r in shown)) for i, h in enumerate(headers)]
    line = "+" + "+".join("-" * (w + 2) for w in width) + "+"
    print(line)
    print("| " + " | ".join(h.ljust(w) for h, w in zip(headers, width, strict=True)) + " |")
    print(line)
    for row in shown:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, width, strict=True)) + " |")
    print(line)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="magnum-driver-manage",
                                     description="Inspect the installed Magnum cluster drivers.")
    sub = parser.add_subparsers(dest="command", required=True)
    list_cmd = sub.add_parser("list-drivers", help="List the installed drivers.")
    list_cmd.add_argument("-d", "--details", action="store_true",
                          help="Also show where each driver's templates live.")
    list_cmd.add_argument("-p", "--paths", action="store_true",
                          help="Same as --details (upstream's spelling).")
    list_cmd.set_defaults(func=_list_drivers)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
