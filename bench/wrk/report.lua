-- Appended to every wrk script by bench/run: prints one machine-readable line.
done = function(summary, latency, requests)
  local e = summary.errors
  local errors = e.connect + e.read + e.write + e.status + e.timeout
  io.write(string.format(
    'WRKJSON {"requests":%d,"duration_us":%d,"errors":%d,"status_errors":%d,"timeouts":%d,"p50_us":%.1f,"p99_us":%.1f,"p999_us":%.1f,"max_us":%.1f}\n',
    summary.requests, summary.duration, errors, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max))
end
