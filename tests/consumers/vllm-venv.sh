#!/bin/sh
# Recreate the CPU-only vLLM 0.33.0 oracle venv for vllm_launch.py (PyPI only,
# every package pinned and installed with --no-deps; ~6 GB, mostly torch's CUDA
# libraries, which the PyPI torch wheel needs just to import without a GPU).
# vLLM pins torch==2.14.0; 2.14.1 imports and runs the same code paths here.
# flashinfer-python is vLLM's pin (0.7.2.post1): the oracle imports it for real
# (FLASHINFER_WORKSPACE_DIR, autotune_v2, cutlass_fused_moe presence).
set -e
V=${1:?usage: vllm-venv.sh VENV_DIR}
python3.11 -m venv "$V"
"$V/bin/pip" install -q --upgrade pip
"$V/bin/pip" install -q --no-deps vllm==0.33.0 flashinfer-python==0.7.2.post1
"$V/bin/pip" install -q --no-deps \
    aiohappyeyeballs==2.7.1 aiohttp==3.14.5 aiosignal==1.4.0 annotated-doc==0.0.7 \
    annotated-types==0.8.0 anyio==4.16.0 apache-tvm-ffi==0.1.11 attrs==26.1.0 \
    blake3==1.0.11 cachetools==8.0.2 cbor2==6.3.0 certifi==2026.10.19.post1 \
    charset-normalizer==3.5.3 click==8.5.1 cloudpickle==3.1.3 compressed-tensors==0.17.0 \
    cuda-bindings==13.5.0 cuda-pathfinder==1.9.1 cuda-toolkit==13.0.3.0 dill==0.4.1 \
    einops==0.8.2 fastapi==0.136.3 filelock==4.3.1 frozenlist==1.8.0 fsspec==2026.9.0 \
    gguf==0.19.0 h11==0.16.0 hf-xet==1.8.0 httpcore==1.0.9 httpcore2==2.16.2 \
    httpx==0.28.1 httpx2==2.16.2 huggingface_hub==1.33.0 idna==3.20 Jinja2==3.1.6 \
    jiter==0.19.0 llguidance==1.7.6 loguru==0.7.3 markdown-it-py==4.3.0 MarkupSafe==3.0.4 \
    mdurl==0.1.2 mpmath==1.3.0 msgspec==0.23.0 multidict==7.2.1 networkx==3.6.1 \
    numpy==2.4.6 nvidia-cublas==13.1.1.3 nvidia-cuda-cupti==13.0.85 \
    nvidia-cuda-nvrtc==13.0.88 nvidia-cuda-runtime==13.0.96 nvidia-cudnn-cu13==9.24.0.43 \
    nvidia-cufft==12.0.0.61 nvidia-cufile==1.15.1.6 nvidia-curand==10.4.0.35 \
    nvidia-cusolver==12.0.4.66 nvidia-cusparse==12.6.3.3 nvidia-cusparselt-cu13==0.8.1 \
    nvidia-ml-py==13.615.71 nvidia-nccl-cu13==2.30.7 nvidia-nvjitlink==13.5.37 \
    nvidia-nvshmem-cu13==3.4.5 nvidia-nvtx==13.0.85 openai==3.57.0 orjson==3.13.0 \
    oss-harmony==0.0.11 packaging==26.4 partial-json-parser==0.2.1.1.post7 pillow==13.0.0 \
    prometheus_client==0.26.0 propcache==0.5.4 protobuf==7.36.2 psutil==7.2.2 \
    py-cpuinfo==9.0.0 pybase64==1.5.1 pydantic==2.14.4 pydantic_core==2.50.5 \
    Pygments==2.21.0 PyYAML==6.0.4 pyzmq==27.3.0 regex==2026.11.19 requests==2.34.2 \
    rich==15.0.0 safetensors==0.8.0 sentencepiece==0.2.1 shellingham==1.5.4 sniffio==1.3.1 \
    starlette==1.10.0 sympy==1.14.0 tokenizers==0.23.2 torch==2.14.1 tqdm==4.70.1 \
    transformers==5.19.0 triton==3.8.0 truststore==0.10.5 typer==0.29.2 \
    typing-inspection==0.4.5 typing_extensions==4.16.0 urllib3==2.8.0 uvicorn==0.54.0 \
    uvloop==0.23.0 watchfiles==1.3.0 xgrammar==0.2.8 xxhash==4.1.0 yarl==1.25.1 \
    zstandard==0.25.0
# Run: "$V/bin/python" tests/consumers/vllm_launch.py --sm 90 --gpu-mem-gib 139 \
#   --config-dir tests/data/hf/Qwen/Qwen3-30B-A3B --json -- vllm serve Qwen/Qwen3-30B-A3B -tp 2
