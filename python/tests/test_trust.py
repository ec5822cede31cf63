"""The Python package under hostile input (issue 57): no write outside the folder it was given,
errors that name the problem, objects usable from any thread, the same register checks as
``pisa exec``. Each test failed on the code before the fix."""

import os
import threading
from pathlib import Path

import numpy as np
import pytest

import pisa_sgu

REPO = Path(__file__).resolve().parents[2]
L8 = str(REPO / "fpga" / "configs" / "l8_qor.toml")


def _entries(d):
    return sorted(os.listdir(d))


@pytest.mark.parametrize("bad", [None, 5, ["x"]])
def test_emit_takes_a_path_and_nothing_else(tmp_path, monkeypatch, bad):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="out: expected a path"):
        pisa_sgu.emit(bad)
    assert _entries(tmp_path) == [], "nothing written into the working folder"


def test_emit_empty_path_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="empty path"):
        pisa_sgu.emit("")
    assert _entries(tmp_path) == []


def test_emit_bytes_and_pathlike_paths_are_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = pisa_sgu.emit(os.fsencode(str(tmp_path / "a")), config=L8)
    assert r["lanes"] == 8 and (tmp_path / "a" / "manifest.json").is_file()
    r = pisa_sgu.emit(tmp_path / "b", config=Path(L8))
    assert (tmp_path / "b" / "pisa_sg_unit.v").is_file()
    assert _entries(tmp_path) == ["a", "b"], "no folder named after a repr"


def test_emit_follows_no_link_out_of_its_folder(tmp_path):
    out, victim = tmp_path / "out", tmp_path / "victim"
    victim.mkdir()
    (victim / "pisa_sg_unit.v").write_text("theirs")
    pisa_sgu.emit(str(out), config=L8)
    (out / "pisa_sg_unit.v").unlink()
    os.symlink("../victim/pisa_sg_unit.v", out / "pisa_sg_unit.v")
    with pytest.raises(ValueError, match="symbolic link"):
        pisa_sgu.emit(str(out), config=L8, force=True)
    assert (victim / "pisa_sg_unit.v").read_text() == "theirs"
    assert _entries(victim) == ["pisa_sg_unit.v"]


def test_a_subgroup_is_usable_from_another_thread():
    sg = pisa_sgu.Subgroup()
    v = np.arange(32, dtype=np.int32)
    got, errors = [], []

    def use():
        try:
            got.append(sg.reduce_all_add(v))
        except BaseException as e:  # a PanicException is a BaseException
            errors.append(e)

    t = threading.Thread(target=use)
    t.start()
    t.join()
    assert errors == []
    assert (got[0] == 496).all()
    assert sg.counts()["subgroup"] > 0  # and back in the thread that made it


@pytest.mark.parametrize(
    "name, message",
    [
        ("%bad name", "not a valid register name"),
        ("9x", "not a valid register name"),
        ("%laneid", "special register"),
        ("activemask", "special register"),
    ],
)
def test_run_checks_registers_as_pisa_exec_does(name, message):
    with pytest.raises(ValueError, match=message):
        pisa_sgu.run(".reg .32b %r;\nredfirstidx.32b %r, 0x1;", {name: np.zeros(32, np.uint32)})


def test_a_2d_array_names_its_shape():
    sg = pisa_sgu.Subgroup()
    with pytest.raises(ValueError, match=r"shape \[2, 32\]|shape \(2, 32\)"):
        sg.reduce_add(np.zeros((2, 32), np.int32))


@pytest.mark.parametrize("log2_size", [-1, 2**40, 6])
def test_tiled_log2_size_out_of_range_is_a_value_error(log2_size):
    sg = pisa_sgu.Subgroup()
    with pytest.raises(ValueError, match="log2_size"):
        sg.reduce_add_tiled(np.zeros(32, np.int32), log2_size)
