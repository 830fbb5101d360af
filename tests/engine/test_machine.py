"""``cpu_description``: the one description of the machine every benchmark writes beside its figures."""

import os

from engine.machine import SPEED_FLAGS, cpu_description

CPUINFO = """processor\t: 0
model name\t: Example CPU 9000 @ 3.00GHz
flags\t\t: fpu sse4_2 avx avx2 fma avx512f avx512_vnni avx_vnni unrelated
processor\t: 1
model name\t: Example CPU 9000 @ 3.00GHz
flags\t\t: fpu sse4_2 avx avx2 fma avx512f avx512_vnni avx_vnni unrelated
"""


def test_the_cpu_its_cores_and_only_the_flags_that_decide_speed_in_one_order(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(CPUINFO)
    described = cpu_description(cpuinfo)
    assert described == {
        "cpu": "Example CPU 9000 @ 3.00GHz",
        "cores": os.cpu_count(),
        "cpu_flags": ["sse4_2", "avx", "avx2", "fma", "avx512f", "avx512_vnni", "avx_vnni"],
    }
    assert described["cpu_flags"] == [f for f in SPEED_FLAGS if f in described["cpu_flags"]]


def test_without_cpuinfo_the_platform_names_the_cpu_and_no_flag_is_claimed(tmp_path):
    described = cpu_description(tmp_path / "absent")
    assert described["cpu"] and described["cpu_flags"] == []
