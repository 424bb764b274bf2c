"""magnum-driver-manage list-drivers."""

from __future__ import annotations

from drivers import cmd


def test_list_drivers_shows_names_and_provides(capsys):
    assert cmd.main(["list-drivers"]) == 0
    out = capsys.readouterr().out
    for name, os_distro in [("k8s_fedora_coreos_v1", "fedora-coreos"),
                            ("k8s_ubuntu_v1", "ubuntu"),
                            ("k8s_fedora_atomic_v1", "fedora-atomic")]:
        line = next(row for row in out.splitlines() if f" {name} " in row)
        assert f"vm/{os_distro}/kubernetes" in line
    assert "template path" not in out


def test_list_drivers_details_show_template_paths(capsys):
    assert cmd.main(["list-drivers", "--details"]) == 0
    out = capsys.readouterr().out
    assert "template path" in out
    assert "drivers/k8s_ubuntu_v1/templates" in out and "drivers/heat/templates" in out
