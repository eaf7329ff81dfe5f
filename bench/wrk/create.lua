-- POST /api/journal-entries: a new entry per request, one in three public.
local n = 0
local h = {}
for k, v in pairs(wrk.headers) do h[k] = v end
h["Content-Type"] = "application/json"
request = function()
  n = n + 1
  local public = (n % 3 == 0) and "true" or "false"
  return wrk.format("POST", "/api/journal-entries", h,
    '{"title":"Bench entry ' .. n .. '","content":"Written during the create scenario of bench/run: a short note about the morning walk by the river.","isPublic":' .. public .. '}')
end
