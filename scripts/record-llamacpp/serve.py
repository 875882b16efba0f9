"""Start llama-cpp-python's server without llama.cpp's extra buffer types.

Run by scripts/record-llamacpp/run.sh with the server's own arguments. A
llama.cpp built for the machine it runs on (llama-cpp-python's sdist builds
with GGML_NATIVE) repacks the weights for AMX on a CPU that reports AMX, and
on this project's machine (Xeon with amx_int8, a Firecracker VM) the AMX
matrix product crashed with SIGSEGV (at ldtilecfg in ggml_backend_amx_mul_mat)
on the first decode. llama.cpp's model parameter use_extra_bufts = false
skips the repacking (llama-server's --no-repack); llama-cpp-python 0.3.36 does
not expose it, so this sets it in the default model parameters before the
server loads the model. See docs/runner.md, "Local servers".
"""

import runpy

import llama_cpp
import llama_cpp.llama

_default = llama_cpp.llama_model_default_params


def _params():
    p = _default()
    p.use_extra_bufts = False
    return p


llama_cpp.llama.llama_cpp.llama_model_default_params = _params
runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
