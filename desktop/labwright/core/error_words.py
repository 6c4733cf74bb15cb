"""What a failed model call or run means, by its kind (LLMError.kind, an error event's
kind): the app says it in the interface language (core/catalog.py)."""

from __future__ import annotations

from labwright.core.catalog import Catalog

TR_CONTEXT = "Errors"

# a model failure in a few words, inside a sentence: "The model failed (out of time)."
FAILURE_BRIEF = Catalog(
    TR_CONTEXT,
    {
        "auth": "the API key was refused",
        "unreachable": "the server could not be reached",
        "rate_limit": "rate limit or quota",
        "server": "a server error",
        "bad_request": "the request was rejected",
        "context_length": "too long for the model",
        "not_found": "no such model or endpoint",
        "tools_unsupported": "the model cannot call tools",
        "bad_response": "an answer that could not be used",
        "deadline": "out of time",
        "": "an unexpected failure",  # a kind no version named
    },
)

# an error event's kind as a whole sentence, when its message has no words of its own
ERROR_TEXT = Catalog(
    TR_CONTEXT,
    {
        "auth": "The model server refused the API key. Check the key in Settings.",
        "unreachable": "Cannot reach the model server. Check its address in Settings and your connection, or tick “Offline”.",
        "rate_limit": "The model server kept refusing for its rate limit or quota. Wait a little or check your plan.",
        "server": "The model server failed, even after retries. Try again later.",
        "bad_request": "The model server rejected the request. Check the model name in Settings.",
        "context_length": "The request is longer than the model's context. Use a model with a longer context.",
        "not_found": "The model server has no such model or endpoint. Check the model name and the address (it usually ends in /v1) in Settings.",
        "tools_unsupported": "The model rejects tool calls, which exploring the folder needs. Choose a model that supports tool calls in Settings.",
        "bad_response": "The model server sent an answer that could not be used.",
        "deadline": "A model call took longer than its time limit and was stopped.",
        "error": "A model call failed.",
        "internal": "Labwright itself failed during the run; error.txt in the run folder has the details.",
    },
)
