"""The guards of a turn: the final window past the turn budget, the call cap, and
text-only turns."""

from __future__ import annotations

from labwright.core.agent.guards.base import PASS, Ruling, stop_with
from labwright.core.events import Guard
from labwright.core.reasons import Reason
from labwright.core.resources import message
from labwright.core.step_words import Words


class FinalWindow:
    """Past `max_turns`, `window` more turns: the way out is forced once something was
    read (otherwise the tools stay open so that something can be); then the end.

    Servers differ on forced tool choice: some answer it with an error (llama.cpp's
    server: HTTP 500), some ignore it. Either way the window falls back, once, to an
    instruction in words, and its end still comes."""

    def __init__(self, max_turns: int, window: int, finishing: str) -> None:
        self.max_turns = max_turns
        self.window = window
        self.finishing = finishing
        self.forcing = True  # until the server rejects, or the model ignores, tool_choice

    def start(self, turn: int, evidence: bool, standing: str) -> Ruling:
        """Before the model is asked for turn `turn` (1-based)."""
        past = turn - self.max_turns
        if past > self.window:
            detail = Words("turns_stop", turns=self.max_turns, window=self.window)
            return stop_with("iteration_cap", Reason.ITERATION_CAP, detail)
        if past != 1:
            return PASS
        if evidence:
            said = Words("window_forced", turns=self.max_turns, tool=self.finishing)
            note = message("window_forced", standing=standing)
        else:
            said, note = Words("window_unread", turns=self.max_turns), message("window_unread")
        event = Guard("final_window", said)
        return Ruling(events=(event,), note=note, trip=True)

    def forces(self, turn: int, evidence: bool) -> bool:
        """Is the way out the only choice this turn (sent as a forced `tool_choice`)?"""
        return self.forcing and turn > self.max_turns and evidence

    def fallback(self, why: str, standing: str, **params: object) -> Ruling:
        """The server rejected the forced choice, or the model ignored it: from now on the
        way out is asked for in words. Once: a second word would be noise. `why` is the
        code of the event's detail (core/step_words.py), filled from `params`."""
        if not self.forcing:
            return PASS
        self.forcing = False
        detail = Words(why, tool=self.finishing, **params)
        note = message("tool_choice_fallback", finishing=self.finishing, standing=standing)
        return Ruling(events=(Guard("tool_choice_fallback", detail),), note=note)


class CallCap:
    """At most `cap` calls of a turn run; the rest are dropped, from the transcript too.

    Every call the transcript lists needs its tool message (the API wants it), so the
    dropped ones leave the assistant message rather than each getting a "not run"
    answer: a thousand such answers would be sent back on every later turn. The
    model is told in a note after the results.
    """

    def __init__(self, cap: int) -> None:
        self.cap = cap

    def split(self, names: list[str]) -> tuple[int, Ruling]:
        """How many of the turn's calls (by tool name) run, and the guard's word."""
        if len(names) <= self.cap:
            return len(names), PASS
        dropped = ", ".join(sorted(set(names[self.cap :])))
        detail = Words(
            "call_cap",
            asked=len(names),
            cap=self.cap,
            dropped=len(names) - self.cap,
            names=dropped[:200],
        )
        return self.cap, Ruling(
            events=(Guard("call_cap", detail),), note=message("cap_note", cap=self.cap)
        )


class NoToolCall:
    """A turn answered in text only calls no tool: shown, answered with what to do, and
    after `stop_at` of them in a row exploration ends with what was gathered. A small
    model that chats instead of calling tools would otherwise spend every turn so."""

    def __init__(self, stop_at: int, finishing: str) -> None:
        self.stop_at = stop_at
        self.finishing = finishing
        self.in_a_row = 0

    def reply(self, calls: int, standing: str) -> Ruling:
        """After the model's reply, by how many tool calls it made."""
        if calls:
            self.in_a_row = 0
            return PASS
        self.in_a_row += 1
        n = self.in_a_row
        if n >= self.stop_at:
            detail = Words("text_only_stop", count=n)
            return stop_with("no_tool_call", Reason.NO_TOOL_CALL, detail)
        detail = Words("text_only", n=n, of=self.stop_at)
        note = message(
            "no_tool_call", finishing=self.finishing, standing=standing, left=self.stop_at - n
        )
        return Ruling(events=(Guard("no_tool_call", detail),), note=note)
