"""Train and evaluate a BLM solver: `python train.py --dataset_config agr_en_typeI --output_dir runs/agr`.

Also runs under `torchrun --nproc_per_node N train.py ...` and `accelerate launch --multi_gpu
--num_processes N train.py ...`; writes metrics.json into --output_dir; `--resume_from_checkpoint`
continues from the last good checkpoint there. `python train.py --help` lists every flag. An expected
failure is one line on stderr and exit status 2 (BLM_DEBUG=1 shows the traceback).
"""

from blm_cli.train_command import main

if __name__ == "__main__":
    main("train.py")
