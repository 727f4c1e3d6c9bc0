"""The API's routes, one router per concern: `positions` (options and position facts),
`engines` (computer moves and analysis) and `games` (game records and the history). Each
takes the engine service and the game store as FastAPI dependencies (`tictactoe.web.deps`)."""
