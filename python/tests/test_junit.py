"""`pisa regress --junit`: the JUnit file of a run with a planted bug, read by a JUnit parser
that knows nothing of pisa (junitparser from PyPI)."""

import os
import subprocess

from junitparser import Failure, JUnitXml, Skipped

import pisa_sgu
from conftest import REPO

L8 = str(REPO / "fpga" / "configs" / "l8_qor.toml")
# the unit's write-enable output; the planted bug makes lane 0 always write
GOOD = "        wen_o = wen_reg_0_q_o;"
BAD = "        wen_o = wen_reg_0_q_o | 8'h01;"


def regress(cli, *args):
    return subprocess.run([cli, "regress", *args], capture_output=True, text=True)


def test_a_forced_mismatch_is_a_failure_naming_its_form(tmp_path, pisa_cli):
    cli = pisa_cli
    rtl = tmp_path / "rtl"
    pisa_sgu.emit(str(rtl), config=L8)
    top = rtl / "pisa_sg_unit.v"
    text = top.read_text()
    assert GOOD in text, "the unit's output assignment moved: update this test"
    top.write_text(text.replace(GOOD, BAD))
    junit = tmp_path / "results.xml"
    o = regress(cli, "--rtl-dir", str(rtl), "--count", "2000", "--seed", "1", "--junit", str(junit))
    assert o.returncode == 1, o.stdout + o.stderr
    xml = JUnitXml.fromfile(str(junit))
    suites = list(xml)
    assert len(suites) == 1
    cases = {c.name: c for c in suites[0]}
    failed = [n for n, c in cases.items() if any(isinstance(r, Failure) for r in c.result)]
    assert len(failed) == 1, failed
    form = failed[0]
    # the failing form is the one the FAIL line names, with the replay line as its text
    assert f"({form})" in o.stdout, o.stdout
    failure = next(r for r in cases[form].result if isinstance(r, Failure))
    assert "wen: rtl" in failure.message
    assert '"form":' in failure.text and "replay" in failure.text
    # every other form is skipped (the run stops at its first mismatch), none passes unchecked
    assert all(isinstance(c.result[0], Skipped) for n, c in cases.items() if n != form)
    assert len(cases) == len(pisa_sgu.forms()) + 1  # and the reserved opcodes


def test_a_passing_run_passes_every_form(tmp_path, pisa_cli):
    cli = pisa_cli
    junit = tmp_path / "results.xml"
    o = regress(cli, "--config", L8, "--count", "4000", "--seed", "2", "--junit", str(junit))
    assert o.returncode == 0, o.stdout + o.stderr
    suite = list(JUnitXml.fromfile(str(junit)))[0]
    assert suite.tests == len(pisa_sgu.forms()) + 1
    assert suite.failures == 0 and suite.errors == 0
    assert all(c.is_passed for c in suite), [c.name for c in suite if not c.is_passed]
    # a JUnit file someone else wrote is not overwritten
    other = tmp_path / "theirs.xml"
    other.write_text("<testsuites/>")
    o = regress(cli, "--config", L8, "--count", "10", "--junit", str(other))
    assert o.returncode == 2 and "refusing to overwrite" in o.stderr
    assert other.read_text() == "<testsuites/>"


def test_a_mismatch_is_a_github_annotation_under_actions(tmp_path, pisa_cli):
    cli = pisa_cli
    rtl = tmp_path / "rtl"
    pisa_sgu.emit(str(rtl), config=L8)
    top = rtl / "pisa_sg_unit.v"
    top.write_text(top.read_text().replace(GOOD, BAD))
    env = dict(os.environ, GITHUB_ACTIONS="true")
    o = subprocess.run(
        [cli, "regress", "--rtl-dir", str(rtl), "--count", "500", "--seed", "1"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert o.returncode == 1
    lines = [l for l in o.stdout.splitlines() if l.startswith("::error title=pisa regress%3A ")]
    assert len(lines) == 1 and "%0Areplay" in lines[0], o.stdout
