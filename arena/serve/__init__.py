"""``arena serve``: a hosted competition where invited participants submit agents and watch them climb.

``config`` reads a serve config (a ladder config with a ``[serve]`` table); ``auth`` makes and checks
tokens (stored only as HMACs under the server's secret); ``db`` keeps participants and uploads in the
competition's own SQLite file; ``archives`` checks an upload's sizes and names before anything is
unpacked, and unpacks it into a plugin folder of its own; ``checker`` runs ``arena check-agent``'s
machinery on each queued upload in the sandbox; ``player`` admits accepted uploads to the ladder
(``arena.ladder``) and plays it continuously; ``app`` is the web app (JSON API and pages) built by a
factory; ``server`` starts the workers and serves the app with uvicorn (docs/serve.md).
"""
