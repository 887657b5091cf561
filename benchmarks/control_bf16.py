"""CPU seconds per training step of the control model's shape: bf16 autocast vs fp32.

The control model (2 layers, width 128, MLP 512, 3,000 tokens) is trained on CPU; on a CPU
with bf16 instructions (avx512_bf16 / AMX) autocast can cut its step time. Both variants run
interleaved in one process on the same batch, and CPU seconds (``time.process_time``) are
compared, which the load of a shared machine moves far less than wall time. Prints the
per-round medians and the ratio bf16 / fp32.

    .venv/bin/python benchmarks/control_bf16.py [--rounds 6] [--steps 10] [--threads 1]
"""

from __future__ import annotations

import argparse
import statistics
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--length", type=int, default=64)
    args = parser.parse_args()

    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    from knowforge.models.lm_training import IGNORE, _answer_loss

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(vocab_size=3000, hidden_size=128, intermediate_size=512,
                                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4,
                                         tie_word_embeddings=True))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    ids = torch.randint(4, 3000, (args.batch, args.length))
    mask = torch.ones_like(ids)
    labels = ids.clone()
    labels[:, : args.length * 2 // 3] = IGNORE          # the answer is the last third, as in QA examples

    def step(bf16: bool) -> None:
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            loss = _answer_loss(model, ids, mask, labels)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    seconds: dict[bool, list[float]] = {False: [], True: []}
    for bf16 in (False, True):                          # warm-up (first-call allocations)
        step(bf16)
    for _ in range(args.rounds):
        for bf16 in (False, True):
            start = time.process_time()
            for _ in range(args.steps):
                step(bf16)
            seconds[bf16].append(time.process_time() - start)
    fp32, bf16 = statistics.median(seconds[False]), statistics.median(seconds[True])
    print(f"fp32: {fp32 / args.steps * 1000:.1f} ms CPU per step (median of {args.rounds} rounds of {args.steps})")
    print(f"bf16 autocast: {bf16 / args.steps * 1000:.1f} ms CPU per step")
    print(f"ratio bf16 / fp32: {bf16 / fp32:.2f}x ({args.threads} thread(s), batch {args.batch}x{args.length})")


if __name__ == "__main__":
    main()
