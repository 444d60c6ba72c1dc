"""The models the server offers (`GET /api/models`), and which one a conversation uses."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .errors import WidgetError

#: (model, provider): `openai/gpt-4o` of provider `openai` is ("gpt-4o", "openai")
Choice = tuple[str, str | None]


class Offer:
    """The offered model ids in the server's order, the first its default; empty when the
    server could not say (then any model is taken as asked)."""

    def __init__(self, offered: Iterable[Mapping[str, Any]] = ()) -> None:
        self.listed = [dict(m) for m in offered if isinstance(m.get("id"), str)]
        self.choices: dict[str, Choice] = {m["id"]: _choice(m) for m in self.listed}

    @property
    def default(self) -> str | None:
        return next(iter(self.choices), None)

    def __contains__(self, model_id: str) -> bool:
        return not self.choices or model_id in self.choices

    def choose(self, model_id: str) -> Choice:
        """The model and provider of an offered id; `WidgetError` for one not offered."""
        if model_id not in self:
            raise WidgetError.said("model_not_offered", model=str(model_id)[:100])
        return self.choices.get(model_id, (model_id, None))

    def first_choice(self, wanted: str | None) -> Choice:
        """What a widget starts on: `wanted` if offered, else the server's default."""
        if wanted is not None and wanted in self:
            return self.choose(wanted)
        return self.choices[self.default] if self.default else (wanted or "", None)


def _choice(offered: Mapping[str, Any]) -> Choice:
    model_id, provider = offered["id"], offered.get("provider")
    if isinstance(provider, str) and model_id.startswith(f"{provider}/"):
        return model_id[len(provider) + 1 :], provider
    return model_id, None
