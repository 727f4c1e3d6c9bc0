"""The browser app: a FastAPI server (`tictactoe.web.app.create_app`, served by ``ttt serve``)
with a JSON API and a page of plain HTML and JavaScript modules.

- `app`: puts the pieces together: settings, error answers, the page;
- `routers`: the routes, one router each for positions, engines and games;
- `service`: what answers at once and what goes to an engine worker, and the bounded caches;
- `pool` and `worker`: the engine workers (processes) and their queues;
- `engine`: the solver with its cache by symmetry class, and the LRU cache;
- `referee`: the server's side of a game (moves checked, undo, redo);
- `store`: the games in SQLite; `models`: the JSON shapes; `convert`: from one to the other.

Nothing is imported here, so that a worker process or ``ttt history`` loads only what it uses.
"""

__all__: list[str] = []
