"""The Python bot SDK: write ``decide(view)``, the SDK does the rest.

    from pepper_bot import Bot, main

    class MyBot(Bot):
        def decide(self, view):
            return view["legal_actions"][0]

    if __name__ == "__main__":
        main(MyBot())          # flags --referee/--token/--name, or $PEPPER_REFEREE/$PEPPER_TOKEN/$PEPPER_BOT_NAME

The SDK connects to the referee, says Hello with the bot's credentials, serves
every seat of every game the referee multiplexes on the stream, answers each
Batch of decisions in one AnswerBatch, reconnects with backoff when the stream
drops, logs to stderr, and exits cleanly on SIGTERM/SIGINT. A policy that
raises, or returns something that is not a legal action, is logged and the
first legal action is played instead. See docs/writing-a-bot.md.
"""

from .bot import Bot, PolicyBot, as_bot
from .convert import event_to_dict, game_end_to_dict, game_start_to_dict, request_view, view_to_dict
from .runner import DEFAULT_REFEREE, EXIT_GAVE_UP, EXIT_OK, EXIT_REFUSED, main, match_action, run_bot

__all__ = [
    "Bot", "PolicyBot", "as_bot", "run_bot", "main", "match_action", "view_to_dict", "request_view", "event_to_dict",
    "game_start_to_dict", "game_end_to_dict", "DEFAULT_REFEREE", "EXIT_OK", "EXIT_GAVE_UP", "EXIT_REFUSED",
]
