-- POST /api/user/login, cycling over the ordinary seeded accounts user100…user1099 (all
-- with the same password, set by bench/run above), so that no per-account throttle or
-- lockout turns the storm into cheap refusals: every request must verify a hash.
local n = 0
local h = {}
for k, v in pairs(wrk.headers) do h[k] = v end
h["Content-Type"] = "application/json"
request = function()
  n = n + 1
  return wrk.format("POST", "/api/user/login", h,
    '{"email":"user' .. (100 + n % 1000) .. '@bench.example","password":"' .. password .. '"}')
end
