"""The main job: Magnum's own services on the local cloud, and a cluster's narrated life.

``tools/main-job`` (:mod:`localcloud.main_job`, standard library only) brings the local cloud
up and the project's virtualenv in, then runs :mod:`scenario.main` inside that virtualenv. The
end-to-end tests (``tests/localcloud/e2e``) import the same modules, so what the tests check is
exactly what the main job shows:

* :mod:`scenario.paths` - where the local cloud, the virtualenv and our run directories live;
* :mod:`scenario.procs` - starting, stopping and measuring the processes we own;
* :mod:`scenario.services` - magnum.conf for a run, the database, magnum-api and two
  magnum-conductors;
* :mod:`scenario.coe` - the real ``openstack`` CLI as the demo (or admin) user;
* :mod:`scenario.narrate` - what each step did, how long it took, and the final report;
* :mod:`scenario.life` - the steps of a cluster's life and the fault cases;
* :mod:`scenario.leftovers` - what must be gone after a delete, checked as admin.
"""
