"""A bounded, derandomized run of the project's fuzzer (tests/fuzz) over every
public function and Tensor method: no call may end in a signal or a hang, and
no exception may carry a C++ message. `python -m tests.fuzz --minutes N`
explores further."""
import os

from fuzz.cases import PREAMBLE, public_targets
from fuzz.runner import campaign

# Cases per target in the suite's run (seed 0, the same cases every time).
PER_TARGET = int(os.environ.get("MONOFLOW_FUZZ_PER_TARGET", "15"))


def test_targets_cover_the_public_api():
    names = {t.qualname for t in public_targets()}
    for must in ("flow.add", "flow.Tensor.as_strided", "F.relu", "F.conv2d", "flow.Tensor.sum", "flow.Tensor.view",
                 "flow.Tensor.__getitem__", "flow.Tensor.shape", "flow.FloatTensor"):
        assert must in names, must
    assert len(names) > 500


def test_fuzz_campaign_finds_no_crash_hang_or_cxx_message():
    report = campaign(per_target=PER_TARGET, seed=0, workers=2, timeout=60.0)
    print(report.summary())
    bad = report.failures(("crash", "hang", "bad"))
    assert not bad, (f"{report.summary()}\nReproducers (after this preamble):\n{PREAMBLE}\n"
                     + report.format_findings(60))
