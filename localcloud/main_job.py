"""main-job: the local cloud, magnum-api + two magnum-conductors, and a cluster's whole life.

  1. brings the local cloud up (tools/localcloud up: Keystone, Heat, Barbican,
     Glance; MariaDB and RabbitMQ are installed/started if needed);
  2. sets up the project's virtualenv .venv (pip install -e '.[test]') if it is missing,
     and fetches Debian's kubectl (kubernetes-client) if it is not here;
  From here on the job runs under the network guard (localcloud/guard.py): its processes
  may connect to 127.0.0.0/8 only, anything else is refused, listed, and fails the job.
  3. writes a magnum.conf for this run under .localcloud/magnum/runs/ (RabbitMQ vhost of
     its own, the database chosen by --db / MAGNUM_DB, the local cloud's
     magnum-localcloud.conf as a second --config-file, a kept [crypto] encryption_key),
     runs magnum-db-manage upgrade, starts magnum-api (port 9511, the catalog's) and two
     magnum-conductors and waits until they answer;
  4. narrates, as the non-admin demo user through `openstack coe`: cluster templates ->
     cluster create -> CREATE_COMPLETE -> show (every address local) -> kubeconfig
     verified with openssl -> kubectl get --raw /healthz -> HEALTHY from the simulated
     API -> a stopped worker makes it UNHEALTHY, started again HEALTHY -> resize up ->
     resize down removing a named node -> node group create/delete -> upgrade -> CA
     rotation (the new kubeconfig works, HEALTHY again) -> delete -> nothing left
     (checked as admin); then the fault cases (missing image: 400; failing Heat stack:
     CREATE_FAILED, clean delete);
  5. prints per-step times, the time to the first CREATE_COMPLETE from the start, and the
     memory of every service; stops our services unless --keep.

Exit status 0 when every step passed. Standard library only until the venv exists.
"""
import argparse
import json
import os
import subprocess
import sys
import time

from localcloud import guard
from localcloud.scenario import kubectl, paths, services  # the standard-library-only parts

REPO = str(paths.REPO)


def parse(argv):
    parser = argparse.ArgumentParser(
        prog="main-job", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n", 1)[1].split("\n\nExit")[0],
        epilog="Environment: MAGNUM_DB (default database backend), MAGNUM_LOCALCLOUD_DIR "
               "(the local cloud's state directory), PYTHON (interpreter for a new .venv).\n"
               "Logs and configs of a run: .localcloud/magnum/runs/<run>/.")
    parser.add_argument("--db", choices=services.BACKENDS,
                        default=os.environ.get("MAGNUM_DB", "sqlite"),
                        help="Magnum's database: embedded SQLite (default), or MariaDB / "
                        "PostgreSQL on 127.0.0.1 (env MAGNUM_DB)")
    parser.add_argument("--keep", action="store_true",
                        help="leave magnum-api and the conductors running at the end")
    parser.add_argument("--stop", action="store_true",
                        help="only stop the services a previous --keep left running")
    parser.add_argument("--tier", choices=("lite", "full"),
                        help="switch the local cloud to this tier (default: the tier its "
                        "state directory records, else lite)")
    parser.add_argument("--no-faults", action="store_true",
                        help="skip the fault cases (missing image, failing stack)")
    parser.add_argument("--faults-only", action="store_true",
                        help="run only the fault cases, not the cluster's life")
    return parser.parse_args(argv)


def timed(title, argv, **kwargs):
    print(f"\n[-] {title}\n   $ {' '.join(argv)}", flush=True)
    t0 = time.monotonic()
    res = subprocess.run(argv, cwd=REPO, **kwargs)
    seconds = time.monotonic() - t0
    if res.returncode != 0:
        sys.exit(f"main-job: `{' '.join(argv)}` failed (exit {res.returncode})")
    print(f"   done in {seconds:.1f}s", flush=True)
    return title, seconds


def venv_ready():
    python = paths.venv_bin("python")
    if not os.path.exists(python) or not os.path.exists(paths.venv_bin("openstack")):
        return False
    probe = "import localcloud, magnum_api, magnum_conductor, magnumclient, openstackclient"
    return subprocess.run([python, "-c", probe], cwd="/", capture_output=True).returncode == 0


def main(argv):
    args = parse(argv)
    if args.stop:
        kept = services.stop_kept()
        print("stopped the services of " + kept["run_dir"] if kept else "nothing kept running")
        return 0
    t0 = time.time()
    status = paths.cloud_status()
    tier = args.tier or status.get("tier") or "lite"
    steps = [timed(f"Bring the local cloud up (tier {tier})",
                   [str(paths.LOCALCLOUD), "up", *(["--tier", args.tier] if args.tier else [])])]
    if not venv_ready():
        if not os.path.exists(paths.venv_bin("python")):
            python = os.environ.get("PYTHON") or "python3.11"
            steps.append(timed("Create the project venv", [python, "-m", "venv",
                                                           str(paths.VENV)]))
        steps.append(timed("Install the project and its test extra into .venv",
                           [paths.venv_bin("pip"), "install", "-q", "-e", ".[test]"]))
    if not kubectl.find():
        steps.append(timed("Fetch Debian's kubectl (package kubernetes-client)",
                           [sys.executable, "-m", "localcloud.scenario.kubectl"]))
    env = dict(os.environ, MAIN_JOB_T0=str(t0), MAIN_JOB_STEPS=json.dumps(steps))
    forwarded = ["--db", args.db] + [f"--{flag.replace('_', '-')}" for flag in
                                     ("keep", "no_faults", "faults_only") if getattr(args, flag)]
    # Package installs are done: from here on the job's processes may only reach 127.0.0.0/8
    try:
        return guard.run_command(f"mainjob-{os.getpid()}", [
            paths.venv_bin("python"), "-m", "localcloud.scenario.main", *forwarded], env=env,
            cwd=REPO)
    except guard.GuardError as exc:
        sys.exit(f"main-job: {exc}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
