"""The one part of pytest this benchmark's verification uses (approx), written for this project's tests."""


class approx:
    def __init__(self, expected, rel=1e-6, abs=1e-12):
        self.expected, self.rel, self.tol = expected, rel, abs

    def __eq__(self, other):
        try:
            return abs(float(other) - self.expected) <= max(self.rel * abs(self.expected), self.tol)
        except (TypeError, ValueError):
            return False
