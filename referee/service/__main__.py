"""``python -m referee.service serve --address HOST:PORT``"""

from .cli import app

app()
