1-- roofline.lua: peak rates of a device for a dtype, per SM and in total.
-- Used by heuristics through tunetab.lib("roofline").
local M = {}

-- Dense tensor throughput in FLOP/s for the deployment's dtype; unknown values fall back
-- to the nearest known one (fp4 -> fp8 x2, fp8 -> bf16 x2, bf16 -> fp8 / 2), else a
-- conservative 100 TFLOPS so a ranking still exists.
function M.flops(device, dtype)
  local t = device.dense_tflops or {}
  local key = (dtype == "nvfp4") and "fp4" or ((dtype == "fp8") and "fp8" or "bf16")
  local v = t[key]
  if not v and key == "fp4" and t.fp8 then v = 2 * t.fp8 end
  if not v and key == "fp8" and t.bf16 then v = 2 * t.bf16 end
  if not v and key == "bf16" and t.fp8 then v = t.fp8 / 2 end
  return (v or 100) * 1e12
end

-- HBM bandwidth in bytes/s (unknown: 1 TB/s).
function M.bandwidth(device)
  return (device.memory_bandwidth_gbs or 1000) * 1e9
end

function M.sms(device)
  return device.sm_count or 100
end

return M
