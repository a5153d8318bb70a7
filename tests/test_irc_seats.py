"""Five at a table on IRC (RULES §12.9), against a real ngIRCd: the channel says who sits
out, the hands go by NOTICE to the four who play only, and the one who sits out is refused."""

from __future__ import annotations

from collections.abc import Callable

from irc_server import IrcMessage, NgircdServer
from test_irc_e2e import BOT, CHANNEL, joined, players, running, settings_for

from dokobot.host.service import Service


def _notice(needle: str) -> Callable[[IrcMessage], bool]:
    def match(message: IrcMessage) -> bool:
        return message.command == "NOTICE" and message.nick == BOT and needle in message.text

    return match


async def test_five_at_a_table_on_irc(ngircd: NgircdServer) -> None:
    service = Service.in_memory(seed=3)
    nicks = ("anna", "ben", "carl", "dora", "emil")
    try:
        async with (
            running(service, settings_for(ngircd)),
            players(ngircd, *nicks) as clients,
        ):
            anna, emil = clients[0], clients[-1]
            await anna.say(CHANNEL, "!join")
            await anna.wait_for(joined("anna"))
            await anna.say(CHANNEL, "!option seats 5")
            await anna.wait_for(lambda m: "seats" in m.text and "5" in m.text)
            for client in clients[1:]:
                await client.say(CHANNEL, "!join")
                await client.wait_for(joined(client.nick))
            await anna.wait_for(lambda m: "emil joined (5/5)" in m.text)
            marks = [len(c.messages) for c in clients]
            await anna.say(CHANNEL, "!start")
            await anna.wait_for(lambda m: "Sitting out this game: emil." in m.text)
            # anna is first hand: her hand comes at once, and the others' with their turns;
            # emil sees the channel, never a NOTICE
            await anna.wait_for(_notice("Your hand"), since=marks[0])
            await emil.say(CHANNEL, "!hand")
            refused = await emil.wait_for(_notice("You sit out this game"), since=marks[-1])
            assert refused.text.startswith("You sit out this game")
            notices = [m for m in emil.messages[marks[-1] :] if m.command == "NOTICE"]
            assert notices == [refused], [m.text for m in notices]
    finally:
        await service.close()
