-- PUT /api/journal-entries/{id}: cycles over the ids in `ids` (set by bench/run above).
local n = 0
local h = {}
for k, v in pairs(wrk.headers) do h[k] = v end
h["Content-Type"] = "application/json"
request = function()
  n = n + 1
  local id = ids[(n % #ids) + 1]
  return wrk.format("PUT", "/api/journal-entries/" .. id, h,
    '{"content":"Updated by bench/run, round ' .. n .. ': the garden after the rain."}')
end
