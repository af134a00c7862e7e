from .lookup import get, get_many
