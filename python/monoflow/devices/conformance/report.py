"""The kit's results: one line per check, grouped by suite, and the tally."""
import json
import sys

PASSED, FAILED, NOT_COVERED = "passed", "failed", "not covered"


class Result:
    __slots__ = ("suite", "name", "status", "detail", "seconds")

    def __init__(self, suite, name, status, detail="", seconds=0.0):
        self.suite, self.name, self.status, self.detail, self.seconds = suite, name, status, detail, seconds

    def to_dict(self):
        return {"suite": self.suite, "name": self.name, "status": self.status, "detail": self.detail,
                "seconds": round(self.seconds, 3)}

    @classmethod
    def from_dict(cls, d):
        return cls(d["suite"], d["name"], d["status"], d.get("detail", ""), d.get("seconds", 0.0))


class Report:
    def __init__(self, target, device_type="", path=""):
        self.target, self.device_type, self.path = target, device_type, path
        self.results = []

    def add(self, result):
        self.results.append(result)

    def count(self, status):
        return sum(r.status == status for r in self.results)

    @property
    def passed(self):
        return self.count(PASSED)

    @property
    def failed(self):
        return self.count(FAILED)

    @property
    def not_covered(self):
        return self.count(NOT_COVERED)

    def failures(self):
        return [r for r in self.results if r.status == FAILED]

    def summary(self):
        return f"{self.passed} passed, {self.failed} failed"

    def to_dict(self):
        return {"target": self.target, "device_type": self.device_type, "path": self.path,
                "passed": self.passed, "failed": self.failed, "not_covered": self.not_covered,
                "results": [r.to_dict() for r in self.results]}

    def write_json(self, path):
        with open(path, "w") as f:
            json.dump(self.to_dict(), f, indent=1)

    def print(self, file=None, verbose=False):
        """Readable report: failures in full, passes one line each (or a count
        per suite unless `verbose`), the ops without a driver listed."""
        out = file or sys.stdout
        print(f"monoflow device conformance: {self.target}"
              + (f" (device type '{self.device_type}', {self.path})" if self.device_type else ""), file=out)
        suites = []
        for r in self.results:
            if r.suite not in suites:
                suites.append(r.suite)
        for suite in suites:
            rows = [r for r in self.results if r.suite == suite]
            n_pass = sum(r.status == PASSED for r in rows)
            n_fail = sum(r.status == FAILED for r in rows)
            uncovered = [r for r in rows if r.status == NOT_COVERED]
            print(f"\n== {suite}: {n_pass} passed, {n_fail} failed, {len(uncovered)} not covered", file=out)
            for r in rows:
                if r.status == FAILED:
                    print(f"  FAIL  {r.name}", file=out)
                    for line in (r.detail or "").splitlines()[:20]:
                        print(f"        {line}", file=out)
                elif r.status == PASSED and (verbose or suite == "contract"):
                    print(f"  ok    {r.name}" + (f"  ({r.detail})" if r.detail and verbose else ""), file=out)
            if uncovered and (verbose or len(uncovered) <= 8 or suite == "contract"):
                for r in uncovered:
                    print(f"  --    {r.name}" + (f"  ({r.detail})" if r.detail else ""), file=out)
            elif uncovered:
                print(f"  --    not covered: {', '.join(r.name for r in uncovered)}", file=out)
        if self.not_covered:
            print(f"\n{self.not_covered} not covered (no driver, or not applicable to this device)", file=out)
        print(f"\n{self.summary()}", file=out)
