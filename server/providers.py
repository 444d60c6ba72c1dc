"""Several upstreams: the providers of a TOML config, and where a model id sends a request.

```toml
[providers.openai]
base_url = "https://api.openai.com/v1"
api_key_env = "OPENAI_API_KEY"   # the name of a variable: keys never live in the file
models = ["gpt-4o-mini", "gpt-4o"]

[providers.openai.context]           # optional: each model's context window, in tokens
"gpt-4o-mini" = 128000
```

With a config, model ids are `<provider>/<model>`, split at the first `/` (provider names hold
none). A request goes only to its provider's URL, with its provider's key, as the bare model.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .errors import APIError, ConfigError

PROVIDER_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


@dataclass(frozen=True)
class Provider:
    name: str
    base_url: str
    models: tuple[str, ...]
    api_key: str | None = field(default=None, repr=False)
    #: USD per million tokens, per model: (input, output)
    prices: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    #: the context window of a model, in tokens, where the providers file says
    context: Mapping[str, int] = field(default_factory=dict)

    def ids(self) -> tuple[str, ...]:
        return tuple(f"{self.name}/{model}" for model in self.models)


@dataclass(frozen=True)
class Destination:
    """Where one request goes: the URL, the key and the model name the upstream knows."""

    base_url: str
    api_key: str | None = field(repr=False)
    model: str
    provider: str | None = None
    #: USD per million (prompt, completion) tokens, when the providers file says
    price: tuple[float, float] | None = None

    @property
    def model_id(self) -> str:
        """The model as clients name it (`provider/model` with a providers file)."""
        return f"{self.provider}/{self.model}" if self.provider else self.model


def load_providers(path: str | Path, environ: Mapping[str, str]) -> tuple[Provider, ...]:
    """The providers of a config file, in the file's order; `ConfigError` naming any problem."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read the config file {path}: {exc.strerror}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"the config file {path} is not valid TOML: {exc}") from exc
    tables = data.get("providers")
    if not isinstance(tables, dict) or not tables:
        raise ConfigError(f"the config file {path} has no [providers.<name>] table")
    providers = []
    for name, table in tables.items():
        where = f"{path}, [providers.{name}]"
        if not PROVIDER_NAME.match(name):
            raise ConfigError(f"{where}: a provider name is letters, digits, '_', '-' or '.'")
        if not isinstance(table, dict):
            raise ConfigError(f"{where}: must be a table")
        unknown = set(table) - {"base_url", "api_key_env", "models", "prices", "context"}
        if unknown:
            raise ConfigError(f"{where}: unknown keys {sorted(unknown)} (keys go in variables)")
        base_url = table.get("base_url")
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"{where}: base_url must be an http:// or https:// URL")
        models = table.get("models")
        if (
            not isinstance(models, list)
            or not models
            or not all(isinstance(m, str) and m.strip() for m in models)
        ):
            raise ConfigError(f"{where}: models must be a non-empty list of model names")
        key_variable = table.get("api_key_env")
        api_key = None
        if key_variable is not None:
            if not isinstance(key_variable, str) or not key_variable:
                raise ConfigError(f"{where}: api_key_env must name an environment variable")
            api_key = environ.get(key_variable, "").strip()
            if not api_key:
                raise ConfigError(
                    f"{where}: the environment variable {key_variable} (api_key_env) is not set"
                )
        prices = _prices(table.get("prices", {}), models, where)
        context = _context(table.get("context", {}), models, where)
        providers.append(Provider(name, base_url.rstrip("/"), tuple(models), api_key, prices,
                                  context))  # fmt: skip
    return tuple(providers)


def destination(providers: tuple[Provider, ...], model_id: object) -> Destination:
    """The provider a `<provider>/<model>` id names, or a 400 before any upstream call."""
    offered = [model for provider in providers for model in provider.ids()]
    if isinstance(model_id, str) and "/" in model_id:
        name, model = model_id.split("/", 1)
        for provider in providers:
            if provider.name == name and model in provider.models:
                return Destination(provider.base_url, provider.api_key, model, provider.name,
                                   provider.prices.get(model))  # fmt: skip
    raise APIError.said(400, "model_not_allowed", model=str(model_id)[:100],
                        models=", ".join(offered))  # fmt: skip


def _prices(table: object, models: list[str], where: str) -> dict[str, tuple[float, float]]:
    """`[providers.NAME.prices]`: `"MODEL" = { input = USD, output = USD }` per million tokens."""
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: prices must be a table of models")
    prices = {}
    for model, price in table.items():
        if model not in models:
            raise ConfigError(f"{where}: prices names {model!r}, which is not in models")
        if (
            not isinstance(price, dict)
            or set(price) != {"input", "output"}
            or not all(
                isinstance(v, int | float) and not isinstance(v, bool) and v >= 0
                for v in price.values()
            )
        ):
            raise ConfigError(
                f"{where}: the price of {model!r} must be {{ input = USD, output = USD }} per "
                "million tokens, each 0 or more"
            )
        prices[model] = (float(price["input"]), float(price["output"]))
    return prices


def _context(table: object, models: list[str], where: str) -> dict[str, int]:
    """`[providers.NAME.context]`: `"MODEL" = TOKENS`, the model's context window."""
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: context must be a table of models")
    for model, tokens in table.items():
        if model not in models:
            raise ConfigError(f"{where}: context names {model!r}, which is not in models")
        if not isinstance(tokens, int) or isinstance(tokens, bool) or not 0 < tokens <= 10**8:
            raise ConfigError(
                f"{where}: the context of {model!r} must be its window in tokens, a whole "
                "number from 1 to 100000000"
            )
    return dict(table)
