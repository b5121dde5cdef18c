"""A finding costs its message and its actual text, not a copy of what findings share (issue 15,
item 11): 500,000 malformed lines took 2.5 GB. Measured with tracemalloc: about 1,760 bytes a
finding before (a pydantic set of field names each, a citation string each), about 850 after."""

from __future__ import annotations

import gc
import json
import tracemalloc

from audit.findings import Finding
from audit.reporters import json_report
from audit.rulesets import Library
from audit.run import run_audit
from audit.stream.inputs import audit_input

LINES = 20_000
#: bytes a finding may keep, all told (its model, message, actual, line number, place in the list)
BOUND = 1_000


def test_a_finding_keeps_only_its_own_text(tmp_path):
    log = tmp_path / "bad.del"
    log.write_bytes(
        b"".join(
            b"\xff not UTF-8, line %d of a log in the wrong encoding\n" % n for n in range(LINES)
        )
    )
    library = Library.load()
    gc.collect()
    tracemalloc.start()
    try:
        replay, _ = audit_input(library, str(log))
        gc.collect()
        kept, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    findings = replay.findings
    assert len(findings) == LINES
    assert kept / LINES < BOUND, f"{kept / LINES:.0f} bytes a finding"
    first, last = findings[0], findings[-1]
    assert first.citation is last.citation and first.model_fields_set is last.model_fields_set
    # built without validation, yet the same finding as a validated one, in every report
    again = Finding(**first.model_dump())
    assert again == first and again.model_dump_json() == first.model_dump_json()
    report = json.loads(json_report.render(run_audit(library, [str(log)])))
    assert report["summary"]["findings"]["error"] == LINES and len(report["findings"]) == LINES
