"""Whether the session's model takes images: asked when every session is built, so it stays apart from the
`@image:` reader (cli/image_refs.py), which loads with the first message that names an image."""

from __future__ import annotations

from paicli.config.settings import Settings


def model_takes_images(settings: Settings, declared: str) -> bool:
    """The vision setting (on|off) decides; otherwise the provider profile's known vision models."""
    if declared != "auto":
        return declared == "on"
    return settings.provider_spec.takes_images(settings.model)
