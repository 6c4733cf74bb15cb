"""What model calls cost: one pricing rule for the budget guard, run.json and the app.

A call is priced by the model name the server says it served (a dated snapshot
such as "gpt-4o-2024-08-06" for "gpt-4o"), falling back to the name the run
was configured with, so a price entered for either is found. Prices are USD per
1M tokens, {"model": {"prompt": p, "completion": c}}; an unpriced call costs 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # types only: config.py prices Settings with call_usd
    from labwright.core.llm.client import Usage
    from labwright.core.settings.config import RunConfig

Prices = Mapping[str, Mapping[str, float]]


def role_model(config: RunConfig, role: str) -> str:
    """The model the run asks for in this role (explore, vision, or a writing role)."""
    if role == "explore":
        return config.explore_model
    if role == "vision":
        return config.vision_model or config.write_model
    return config.write_model


def call_usd(
    prices: Prices, served: str | None, configured: str | None, prompt: int, completion: int
) -> float | None:
    """USD for one call's tokens; None when neither model name has a price."""
    price = (prices.get(served) if served else None) or (
        prices.get(configured) if configured else None
    )
    if not price:
        return None
    return (prompt * price["prompt"] + completion * price["completion"]) / 1e6


def spent_usd(config: RunConfig, usage: Usage) -> float:
    """Money spent so far over every call in `usage` (0 for unpriced calls).

    The calls with a served model name are priced by it (else by the configured
    one); the rest of a role's tokens by the role's configured model.
    """
    total = 0.0
    for role, u in usage.by_role.items():
        configured = role_model(config, role)
        rest_prompt, rest_completion = u.prompt_tokens, u.completion_tokens
        for (r, served), s in usage.by_model.items():
            if r != role:
                continue
            cost = call_usd(config.prices, served, configured, s.prompt_tokens, s.completion_tokens)
            total += cost or 0.0
            rest_prompt -= s.prompt_tokens
            rest_completion -= s.completion_tokens
        cost = call_usd(
            config.prices, None, configured, max(rest_prompt, 0), max(rest_completion, 0)
        )
        total += cost or 0.0
    return total
