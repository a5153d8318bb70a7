"""The slash commands and the adapter's own few strings in the reader's language.

Everything here comes from the host's message catalogues (:mod:`dokobot.host.i18n`): the
adapter's own words (the board, its buttons and notices) are the catalogues' ``discord.*``
texts, and the command picker's descriptions and choice labels are translated by
``locales/slash/LANG.yaml`` (:func:`picker_texts`), keyed by the English text of the
declarations. Command and argument names carry their form in every language (the languages'
words files, see :mod:`dokobot.languages`); a Discord locale is the language of its code's language part
(``de``, ``en`` of ``en-GB``).

The host renders every game text in the table's language; the adapter only needs words for
its own buttons and notices, and the names and descriptions Discord shows in the command
picker. Those are English :class:`~discord.app_commands.locale_str` messages, translated here
for clients in another of the catalogues' languages.

>>> import asyncio
>>> from discord import Locale
>>> from discord.app_commands import locale_str
>>> t = DokoTranslator()
>>> asyncio.run(t.translate(locale_str("healthy", de="gesund"), Locale.german, None))
'gesund'
>>> asyncio.run(t.translate(locale_str("Play a card"), Locale.german, None))
'Eine Karte spielen'
>>> asyncio.run(t.translate(locale_str("healthy", de="gesund"), Locale.french, None)) is None
True
>>> text("my_hand", "de")
'Meine Karten'
"""

from __future__ import annotations

from discord import Locale, app_commands

from dokobot import languages
from dokobot.host.i18n import DEFAULT_LANG
from dokobot.host.i18n import text as catalogue_text


class DokoTranslator(app_commands.Translator):
    """Translates command names, descriptions and choices into the catalogues' languages."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        lang = lang_of(locale)
        if lang == DEFAULT_LANG:
            return None  # the declared English text
        name = string.extras.get(lang)  # a name, declared with its form in that language
        return str(name) if name is not None else picker_texts(lang).get(string.message)


@languages.derived
def picker_texts(lang: str) -> dict[str, str]:
    """The command picker's texts in ``lang`` (the commands' summaries, their arguments'
    descriptions, choice labels; the language's ``slash`` file), keyed by their English text
    as declared; empty for English.

    >>> picker_texts("de")["Play a card"], picker_texts("en")
    ('Eine Karte spielen', {})
    """
    if lang == DEFAULT_LANG:
        return {}
    return {str(k): str(v) for k, v in languages.data(lang, "slash").items()}


def text(key: str, lang: str, **fields: str) -> str:
    """One of the adapter's own strings (the catalogues' ``discord.KEY``) in ``lang``."""
    return catalogue_text(lang, "discord." + key).format(**fields)


def lang_of(locale: Locale | None) -> str:
    """The language of a Discord client's ``locale``: the one whose code is the locale's
    language part (``de``, ``en`` of ``en-GB``), English for any other.

    >>> lang_of(Locale.german), lang_of(Locale.american_english), lang_of(None)
    ('de', 'en', 'en')
    >>> lang_of(Locale.italian), lang_of(Locale.czech), lang_of(Locale.british_english)
    ('it', 'cs', 'en')
    >>> lang_of(Locale.french)
    'en'
    """
    if locale is None:
        return DEFAULT_LANG
    return languages.known(str(locale.value).split("-")[0])
