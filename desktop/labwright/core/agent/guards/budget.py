"""Token, money and time budgets, of the run and of one stage (exploration, writing).

Shared by the exploration loop (through the ledger) and the writing stages
(report/writing.py): after each model call, `check()` says go on, wrap up, or stop.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from labwright.core.events import Guard
from labwright.core.reasons import Reason
from labwright.core.resources import message
from labwright.core.settings.config import RunConfig
from labwright.core.settings.cost import spent_usd
from labwright.core.step_words import Words

if TYPE_CHECKING:
    from labwright.core.llm.client import Usage


@dataclass
class Verdict:
    action: Literal["run", "stop"]
    content: str = ""  # why it stopped, or the wrap-up message for the model
    events: list[Guard] = field(default_factory=list)
    reason: Reason = Reason.BUDGET  # of a stop: which kind of budget ran out


class RunClock:
    """The whole run's wall-clock budget (--max-minutes), from when the run started.

    `now` is injectable so that tests drive time without sleeping."""

    def __init__(self, limit_s: float, now: Callable[[], float] = time.monotonic) -> None:
        self.limit_s = limit_s
        self.now = now
        self.start = now()

    def spent(self) -> float:
        return self.now() - self.start

    def left(self) -> float:
        """Seconds left of the budget (negative once past it): a model call's deadline is
        never later than this (llm.client's `run_left`)."""
        return self.limit_s - self.spent()

    def restarted(self) -> RunClock:
        """The same budget from now on (a re-draft is new work the person asked for)."""
        return RunClock(self.limit_s, self.now)


@dataclass
class _Limit:
    label: str  # "token budget", "exploration money budget", ...
    limit: float
    spent: Callable[[], float]
    money: bool
    reason: Reason = Reason.BUDGET
    minutes: bool = False

    def show(self, value: float) -> str:
        if self.minutes and self.limit < 60:  # --max-minutes 0.05: "3 s", not "0.1 min"
            return f"{value:,.1f} s"
        if self.minutes:
            return f"{value / 60:,.1f} min"
        return f"${value:,.4f}" if self.money else f"{value:,.0f}"


class Budget:
    """Token and money budgets of the run and of one stage: one wrap-up warning at
    `budget_warn_percent` of whichever limit gets there first, a stop at 100 % of any.

    Run limits count everything in `usage` (earlier stages, a resumed run); stage
    limits count from the moment the Budget is made. Money needs `config.prices`.
    """

    def __init__(
        self,
        config: RunConfig,
        usage: Usage,
        stage: str | None = None,
        clock: RunClock | None = None,
    ) -> None:
        self.stage = stage
        self.warn_share = config.guards.budget_warn_percent / 100
        self.warned = False
        tokens0, usd0 = usage.total_tokens, spent_usd(config, usage)
        self.limits: list[_Limit] = []
        if config.budget_tokens:
            self.limits.append(
                _Limit("token budget", config.budget_tokens, lambda: usage.total_tokens, False)
            )
        if config.budget_usd:
            self.limits.append(
                _Limit("money budget", config.budget_usd, lambda: spent_usd(config, usage), True)
            )
        if clock is not None:
            self.limits.append(
                _Limit("time budget", clock.limit_s, clock.spent, False, Reason.TIME_UP, True)
            )
        if stage == "explore" and config.explore_budget_tokens:
            self.limits.append(
                _Limit(
                    "exploration token budget",
                    config.explore_budget_tokens,
                    lambda: usage.total_tokens - tokens0,
                    False,
                )
            )
        if stage == "explore" and config.explore_budget_usd:
            self.limits.append(
                _Limit(
                    "exploration money budget",
                    config.explore_budget_usd,
                    lambda: spent_usd(config, usage) - usd0,
                    True,
                )
            )

    @property
    def exhausted(self) -> bool:
        return any(lim.spent() >= lim.limit for lim in self.limits)

    @property
    def reason(self) -> Reason:
        """Which budget ran out (the time budget's own reason), BUDGET when none did."""
        spent = [lim for lim in self.limits if lim.spent() >= lim.limit]
        return spent[0].reason if spent else Reason.BUDGET

    @property
    def _what(self) -> str:
        """What a stop ends, in its message."""
        return "exploration" if self.stage == "explore" else self.stage or "the run"

    def out_of_time(self, said: str) -> Verdict:
        """The stop for a model call that the run's clock cut in flight (llm.client.TimeUp,
        whose message is `said`): the time budget ran out, whatever a clock read a moment
        later says (a cut may come a hair before the clock's end)."""
        lim = next((lim for lim in self.limits if lim.reason is Reason.TIME_UP), None)
        if lim is None:  # a client given a run budget this Budget does not track
            return Verdict("stop", said, [Guard("budget", said)], Reason.TIME_UP)
        return self._stop(lim, max(lim.spent(), lim.limit))

    def _stop(self, lim: _Limit, value: float) -> Verdict:
        detail = Words(
            "budget_stop",
            Label=f"{lim.label[0].upper()}{lim.label[1:]}",
            spent=lim.show(value),
            limit=lim.show(lim.limit),
            what=self._what,
        )
        return Verdict("stop", detail, [Guard("budget", detail)], lim.reason)

    def check(self) -> Verdict:
        """After a model call: "stop" (content says why), or "run" — with the wrap-up
        message for the model as content the first time a limit passes the warning share."""
        spent = [(lim, lim.spent()) for lim in self.limits]
        for lim, value in spent:
            if value >= lim.limit:
                return self._stop(lim, value)
        if not self.warned:
            for lim, value in spent:
                if value >= self.warn_share * lim.limit:
                    self.warned = True
                    share = round(100 * self.warn_share)
                    return Verdict(
                        "run",
                        content=message("budget_wrap_up", share=share, label=lim.label),
                        events=[
                            Guard(
                                "budget",
                                Words(
                                    "budget_warn",
                                    share=share,
                                    label=lim.label,
                                    spent=lim.show(value),
                                    limit=lim.show(lim.limit),
                                ),
                            )
                        ],
                    )
        return Verdict("run")
