"""Heavy work over many questions: the tasks a worker process runs (tasks), Ray for a cluster (ray_runner) and
recording real-LLM runs (recording). Above evaluation and the methods; the machinery that runs it beside the
app is :mod:`core.background`."""
