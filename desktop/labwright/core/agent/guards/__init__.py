"""The guards of the exploration loop (DESIGN.md, "Guards").

- base.py: what a guard sees (`CallRecord`) and answers (`Ruling`), fingerprints;
- policies.py: the guards of a call, one class each, and their order (`policies`);
- turns.py: the guards of a turn (the final window, the per-turn call cap);
- budget.py: token and money budgets (also used by the writing stages).

agent/ledger.py composes them: it sees every call and outcome, combines the
checks, and rebuilds the transcript the model is sent.
"""

from __future__ import annotations

from labwright.core.agent.guards.base import (
    PASS,
    Answer,
    CallRecord,
    Policy,
    Ruling,
    Stop,
    describe_call,
    error_shape,
    fingerprint,
)
from labwright.core.agent.guards.budget import Budget, RunClock, Verdict
from labwright.core.agent.guards.policies import Intervals, policies
from labwright.core.settings.cost import spent_usd

__all__ = [
    "PASS",
    "Answer",
    "Budget",
    "RunClock",
    "Ruling",
    "Intervals",
    "Policy",
    "CallRecord",
    "Stop",
    "Verdict",
    "describe_call",
    "error_shape",
    "fingerprint",
    "policies",
    "spent_usd",
]
