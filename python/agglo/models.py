"""Per-model settings, generated from the library's key table (`agglo run --help`,
docs/config.md): each model is a Config subclass whose keyword arguments are its keys.

    c = agglo.models.DPD(thermostat="transverse", kT=1, t_end=5)   # dpd.thermostat, dpd.kT, run.t_end
    c = agglo.models.Contact(sigma=0.5, n=500, box__size=(1, 1))   # brownian.sigma, particles.n
    sim = agglo.Simulation(c)
    help(agglo.models.DPD)                                         # every [dpd] key: meaning, default, allowed

A keyword is a key of the model's own sections (thermostat -> dpd.thermostat), else a key name
found in one section only (t_end -> run.t_end), else section__key (box__size -> box.size); an
unknown or ambiguous name raises agglo.UnknownKeyError listing what is allowed. The string keys
(c["dpd.thermostat"] = ...) work as on any Config."""
from typing import Any, Dict, List, Optional, Tuple, Type

from .errors import UnknownKeyError
from .simulation import Config, KeyInfo, config_keys

__all__ = ["Contact", "Gluey", "Ballistic", "DPD", "MODELS"]

# run.model -> (class name, the sections of its own settings, the paper)
_MODELS: Dict[str, Tuple[str, Tuple[str, ...], str]] = {
    "contact": ("Contact", ("drag", "brownian", "attraction", "flow", "gravity", "solver"),
                "contact dynamics with aggregation (Maury 2004)"),
    "gluey": ("Gluey", ("gluey", "obstacles"), "gluey particles (Lefebvre 2007)"),
    "ballistic": ("Ballistic", ("ballistic",), "ballistic aggregation (Degond et al. 2024)"),
    "dpd": ("DPD", ("dpd",), "dissipative particle dynamics (Mokkapati 2006)"),
}


def _resolve(name: str, sections: Tuple[str, ...], keys: List[KeyInfo]) -> str:
    """The full key of a keyword (see the module's docstring)."""
    if "__" in name:
        return name.replace("__", ".")
    own = [k.key for k in keys if k.key.split(".", 1)[0] in sections
           and k.key.split(".", 1)[1] == name]
    if len(own) == 1:
        return own[0]
    anywhere = [k.key for k in keys if k.key.split(".", 1)[1] == name]
    if len(anywhere) == 1:
        return anywhere[0]
    if anywhere:
        raise UnknownKeyError(f"{name}: ambiguous (one of {', '.join(anywhere)}); write "
                              f"section__{name}, e.g. {anywhere[0].replace('.', '__')}")
    allowed = ", ".join(k.key.split(".", 1)[1] for k in keys
                        if k.key.split(".", 1)[0] in sections)
    raise UnknownKeyError(f"{name}: unknown key (allowed: {allowed}; any other key as "
                          "section__key)")


class ModelConfig(Config):
    """A Config with run.model set and keyword arguments resolved to keys (see agglo.models)."""

    model: str = ""
    sections: Tuple[str, ...] = ()

    def __init__(self, config: Optional[Any] = None, **settings: Any) -> None:
        super().__init__()
        if config is not None:
            self.update(Config._of(config).to_dict())
        self["run.model"] = self.model
        keys = config_keys()
        for name, value in settings.items():
            self[_resolve(name, self.sections, keys)] = value

    @classmethod
    def keys_info(cls) -> List[KeyInfo]:
        """The keys of the model's own sections, with default, allowed values and meaning."""
        return [k for k in config_keys() if k.key.split(".", 1)[0] in cls.sections]


def _doc(model: str, sections: Tuple[str, ...], title: str) -> str:
    lines = [f"Settings of the {model} model: {title}; run.model = {model}.",
             "", f"{'Model(config=None, **keys)'}: config (a Config, dict or scenario path) "
             "first, then the keywords.", "", "Keywords of its own sections:"]
    for k in config_keys():
        section, name = k.key.split(".", 1)
        if section in sections:
            default = k.default if k.default else "(none)"
            lines.append(f"    {name} ({k.key}; default {default}; allowed {k.allowed}): "
                         f"{k.meaning}")
    lines.append("")
    lines.append("Other keys: a name found in one section only (t_end, n, seed, ...) or "
                 "section__key.")
    return "\n".join(lines)


def _make(model: str) -> Type[ModelConfig]:
    name, sections, title = _MODELS[model]
    cls = type(name, (ModelConfig,), {"model": model, "sections": sections,
                                      "__doc__": _doc(model, sections, title),
                                      "__module__": __name__})
    return cls


Contact = _make("contact")
Gluey = _make("gluey")
Ballistic = _make("ballistic")
DPD = _make("dpd")
MODELS: Dict[str, Type[ModelConfig]] = {"contact": Contact, "gluey": Gluey,
                                        "ballistic": Ballistic, "dpd": DPD}
