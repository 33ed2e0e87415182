# fi-h200.sh: sourced by the GPU tests that run FlashInfer 0.7.4's real kernels: installs the
# bundle (../shared/flashinfer-h200, carried as .gpu/flashinfer-h200; TUNETAB_FI_H200 names
# another) into $TUNETAB_FI_SITE (default /tmp/site) and puts it on PYTHONPATH. Not a test.
FI=${TUNETAB_FI_H200:-$ROOT/.gpu/flashinfer-h200}
[ -f "$FI/install.sh" ] || { echo "no FlashInfer bundle at $FI: carry ../shared/flashinfer-h200 as .gpu/flashinfer-h200"; exit 1; }
SITE=${TUNETAB_FI_SITE:-/tmp/site}
bash "$FI/install.sh" "$SITE" >/dev/null
export PYTHONPATH=$SITE${PYTHONPATH:+:$PYTHONPATH}
