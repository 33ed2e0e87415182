# 186-dist-nodriver: the release tarball `make tarball` built (build/dist/, issue #31), unpacked
# anywhere and run under `env -i` on a machine with no NVIDIA driver: the binary starts, makes
# heuristic tables from the data beside it (share/tunetab) and validates them; detect says no
# driver is loaded (exit 4). LD_DEBUG shows every library it asks the loader for: glibc's, the
# C++ runtime, and at run time only the driver's libcuda.so.1 (the CUDA runtime is linked in;
# cuBLASLt is opened only by a cublaslt measurement).
# requires: nogpu
. "$ROOT/tests/lib.sh"
T=$(ls "$ROOT"/build/dist/tunetab-*.tar.gz)
[ "$(echo "$T" | wc -l)" = 1 ] || { echo "expected one tarball in build/dist: $T"; exit 1; }
V=$(cat "$ROOT/src/VERSION")
mkdir unpacked
tar xzf "$T" -C unpacked
top=$(ls unpacked)
case $top in "tunetab-$V-manylinux_2_"*) echo "top folder: tunetab-<version>-manylinux_2_<Y>_<arch>" ;; *) echo "top folder: $top" ;; esac
(cd "unpacked/$top" && find . -maxdepth 3 -type d | sort && ls share/man/man1)
cd "unpacked/$top"
B=bin/tunetab
E="env -i HOME=/nonexistent PATH=/usr/bin:/bin"
run $E "$B" --version
run $E "$B" generate --device rtx-pro-6000-server --model qwen3-30b-a3b --dtype fp8 --flashinfer 0.7.4 -q -o out
run $E "$B" validate -q out/v0_1_trtllm_fused_moe_NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition.py
$E LD_DEBUG=libs "$B" detect >detect.out 2>detect.err && rc=0 || rc=$?
echo "detect: exit $rc"
grep -o 'tunetab: error: .*' detect.err
grep -o 'find library=[^ ]*' detect.err | sort -u
