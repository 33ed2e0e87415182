"""hf_cache.py: model config files laid out as huggingface_hub's cache lays them out
(models--ORG--NAME/refs/main, snapshots/<commit>/), for the launch-command tests
(tests/launch_check.py) and the consumers' oracles (sglang_launch.py, vllm_launch.py)."""
import os
import shutil


def copy_files(src_dir, dst_dir):
    for f in os.listdir(src_dir):
        src = os.path.join(src_dir, f)
        if os.path.isfile(src):
            shutil.copy(src, dst_dir)


def plant_hub(hub, model_id, config_dir, commit="0" * 40):
    """config_dir's files as the snapshot of hub id model_id (ORG/NAME) in the cache at hub."""
    repo = os.path.join(hub, "models--" + model_id.replace("/", "--"))
    snap = os.path.join(repo, "snapshots", commit)
    os.makedirs(snap, exist_ok=True)
    os.makedirs(os.path.join(repo, "refs"), exist_ok=True)
    with open(os.path.join(repo, "refs", "main"), "w") as f:
        f.write(commit)
    copy_files(config_dir, snap)


def plant_config(model_path, config_dir, tmp):
    """Make model_path resolvable offline without changing its string: a local path that does
    not exist here is made with config_dir's files; a hub id goes into an offline cache under
    tmp (HF_HUB_CACHE, HF_HUB_OFFLINE and TRANSFORMERS_OFFLINE set for this process)."""
    if os.path.isdir(model_path):
        return
    if config_dir is None:
        raise SystemExit(f"oracle: {model_path!r} is not a local folder; pass --config-dir")
    if model_path.startswith("/") or model_path.startswith("."):
        os.makedirs(model_path, exist_ok=True)
        copy_files(config_dir, model_path)
        return
    hub = os.path.join(tmp, "hub")
    plant_hub(hub, model_path, config_dir)
    os.environ["HF_HUB_CACHE"] = hub
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
