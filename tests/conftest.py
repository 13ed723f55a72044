import os
import tempfile

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("HF_DATASETS_CACHE", tempfile.mkdtemp(prefix="blm-hf-cache-"))
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
