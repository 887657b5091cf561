"""Models: the records shared by generators and eval (``types``), the backends that answer
them (transformers, OpenAI-compatible servers, vLLM), the on-disk response cache, and local
models built without downloads (the tiny random model, the control model).

Depends on ``knowforge.kg`` at most; both ``generators`` and ``eval`` import it."""
