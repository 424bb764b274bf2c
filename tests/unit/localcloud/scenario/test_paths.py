"""Where the main job looks: every path under the state directory the environment names,
the tier and the health interval read from it with their defaults."""

from __future__ import annotations

from localcloud.scenario import paths


def test_paths_follow_the_state_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("MAGNUM_LOCALCLOUD_DIR", str(tmp_path))
    assert paths.cloud_state_dir() == tmp_path.resolve()
    assert paths.clouds_yaml() == tmp_path.resolve() / "clouds.yaml"
    home = paths.magnum_home()
    assert home == tmp_path.resolve() / "magnum" and home.is_dir()
    assert paths.cloud_tier() == "lite"
    (tmp_path / "tier").write_text("full\n")
    assert paths.cloud_tier() == "full"
    assert paths.health_polling_interval() == 60
    paths.magnum_fragment().write_text("[kubernetes]\nhealth_polling_interval = 7\n")
    assert paths.health_polling_interval() == 7
    assert paths.venv_bin("magnum-api").endswith("/bin/magnum-api")
    assert paths.API_HOST.startswith("127.")
