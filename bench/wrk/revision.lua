-- GET /api/journal-entries/{id}/revisions/{n}: a random revision of the entry `id`
-- (set by bench/run above) with `count` revisions; each rebuilds from its snapshot.
local h = {}
for k, v in pairs(wrk.headers) do h[k] = v end
math.randomseed(7)
request = function()
  local n = math.random(1, count)
  return wrk.format("GET", "/api/journal-entries/" .. id .. "/revisions/" .. n, h)
end
