"""The main job's second half, inside the project's virtualenv (``main-job`` runs it).

Prepares and starts magnum-api and two magnum-conductors for a fresh run, narrates a
cluster's whole life and the fault cases as the demo user, prints the report, then stops our
services (or keeps them with ``--keep``). Exit status 0 only when every step passed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from localcloud.scenario import paths, services
from localcloud.scenario.coe import ADMIN, Openstack
from localcloud.scenario.life import ClusterLife, Faults
from localcloud.scenario.narrate import Narrator, Step


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="main-job")
    parser.add_argument("--db", choices=services.BACKENDS,
                        default=os.environ.get("MAGNUM_DB", "sqlite"))
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--no-faults", action="store_true")
    parser.add_argument("--faults-only", action="store_true")
    return parser.parse_args(argv)


def cloud_memory() -> list[tuple[str, str, float | None, float | None]]:
    status = paths.cloud_status()
    return [("local cloud", s["service"], s.get("rss_mib"), s.get("pss_mib"))
            for s in status.get("services", [])]


def run_steps(n: Narrator, steps, on_failure=None) -> bool:
    """Run steps in order; stop at the first failure (later ones depend on it)."""
    for title, step in steps:
        try:
            with n.step(title):
                step()
        except KeyboardInterrupt:
            if on_failure is not None:
                n.say("   interrupted: cleaning up what this flow created ...")
                on_failure()
            raise
        except Exception as exc:  # any failure of a step is reported, never fatal to the job
            if on_failure is not None:
                n.say("   cleaning up what this flow created ...")
                on_failure()
            n.detail(f"skipping the rest of this flow after: {type(exc).__name__}")
            return False
    return True


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    n = Narrator(t0=float(os.environ.get("MAIN_JOB_T0") or time.time()))
    for name, seconds in json.loads(os.environ.get("MAIN_JOB_STEPS") or "[]"):
        n.steps.append(Step(name, seconds, True))
    kept = services.stop_kept()
    if kept:
        n.say(f"Stopped the services a `main-job --keep` left running ({kept['run_dir']}).")

    lock = services.PortLock(timeout=600)
    lock.acquire()
    run_dir = services.new_run_dir(f"mainjob-{args.db}")
    svc = services.MagnumServices(run_dir=run_dir, backend=args.db, name="mainjob")
    ok = False
    try:
        with n.step(f"Prepare Magnum: vhost, magnum.conf, {args.db} database, schema"):
            svc.prepare()
            n.detail(f"run directory {run_dir}")
            n.detail(f"magnum.conf + {paths.magnum_fragment()}")
            n.detail(f"[database] connection = {svc.database_url()}")
            n.detail(f"RabbitMQ vhost {svc.vhost or '/ (rabbitmqctl unavailable)'}")
        with n.step("Start magnum-api and two magnum-conductors"):
            svc.start()
            for proc in svc.processes:
                n.detail(f"{proc.name} pid {proc.pid}, log {proc.log}")
            waited = svc.wait_ready()
            n.detail(f"API answers on {paths.API_HOST}:{paths.API_PORT} and conductors "
                     f"{', '.join(svc.conductors_reporting())} report ({waited:.1f}s)")
            n.milestone("Magnum answering")
            admin = Openstack(ADMIN)
            n.command(admin.display("coe", "service", "list", "-f", "json"))
            for row in admin.json("coe", "service", "list"):
                n.detail(f"{row.get('binary')} on {row.get('host')}: {row.get('state')}")
        ok = True
        if not args.faults_only:
            life = ClusterLife(n, run_dir / "scenario", tag=f"mj-{os.urandom(2).hex()}")
            n.say(f"\nA cluster's life as the demo user (cluster {life.name})")
            ok = run_steps(n, life.steps(), on_failure=life.cleanup) and ok
        if not args.no_faults:
            faults = Faults(n, run_dir / "faults", tag=f"mjf-{os.urandom(2).hex()}")
            n.say("\nBad input and a failing stack")
            for title, step in faults.steps():
                ok = run_steps(n, [(title, step)]) and ok
    except services.ServiceError as exc:
        n.say(f"\nMagnum did not start: {exc}")
        ok = False
    finally:
        memory = cloud_memory() + [("magnum", name, rss, pss)
                                   for name, rss, pss, _ in svc.memory()]
        n.say(n.report(memory))
        errors = svc.errors_in_logs()
        n.say(f"\nERROR lines in our logs ({svc.logs}): {len(errors)}")
        for line in errors[:20]:
            n.detail(line)
        if args.keep and svc.processes:
            svc.keep()
            n.say(f"\nKept running (stop with tools/main-job --stop): "
                  f"magnum-api on http://{paths.API_HOST}:{paths.API_PORT}, "
                  f"config {svc.config}")
        else:
            svc.stop()
            n.say("\nStopped magnum-api and the conductors (the local cloud stays up).")
        lock.release()
    n.say("\nRESULT: " + ("every step passed" if ok else "some steps FAILED (see above)"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
