#!/usr/bin/env python3
"""A scenario of N zones of five pools each, for timing the planner on many zones (docs/benchmarks.md,
"Time limit"): zones in pairs per region (region0-a, region0-b, region1-a, ...), regions alternating
between two continents; per zone one pool of each of A100-40, A100-80, H100-80, V100-16 and L4, of 8,
16, 24 or 32 GPUs (rotating with the zone), priced at the default sheet's list price plus 0-12 % by
zone; the default scenario's network and egress defaults, no per-pair links.

    tests/bench/zone_scenario.py 10 ten.json
    build/bin/sailor plan --scenario ten.json --time-limit 5
"""
import json
import sys

TYPES = [("A100-40", 3.67), ("A100-80", 5.58), ("H100-80", 11.06), ("V100-16", 2.86), ("L4", 0.71)]


def scenario(n):
    regions, pools = [], []
    for z in range(n):
        r = z // 2
        if z % 2 == 0:
            regions.append({"name": f"region{r}",
                            "continent": "north-america" if r % 2 == 0 else "europe", "zones": []})
        zone = f"region{r}-{'ab'[z % 2]}"
        regions[-1]["zones"].append(zone)
        for i, (gpu, price) in enumerate(TYPES):
            pools.append({"zone": zone, "gpu_type": gpu, "count": 8 * (1 + (z + i) % 4),
                          "usd_per_gpu_hour": round(price * (1 + 0.03 * ((z * 7 + i) % 5)), 4),
                          "spot": False})
    return {
        "name": f"{n}-zones",
        "description": f"{n} zones of five pools each (tests/bench/zone_scenario.py)",
        "regions": regions,
        "pools": pools,
        "network": {"defaults": {
            "same_zone": {"latency_s": 1e-5, "bandwidth_gb_per_s": 6.0},
            "same_region": {"latency_s": 1e-4, "bandwidth_gb_per_s": 5.0},
            "same_continent": {"latency_s": 0.02, "bandwidth_gb_per_s": 1.0},
            "cross_continent": {"latency_s": 0.08, "bandwidth_gb_per_s": 0.5}}, "links": []},
        "egress_usd_per_gb": {"defaults": {"same_zone": 0.0, "same_region": 0.01,
                                           "same_continent": 0.02, "cross_continent": 0.08},
                              "pairs": []},
    }


if __name__ == "__main__":
    if len(sys.argv) != 3 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        sys.exit("usage: zone_scenario.py ZONES OUT.json (ZONES: an integer >= 1)")
    with open(sys.argv[2], "w") as f:
        json.dump(scenario(int(sys.argv[1])), f, indent=1)
        f.write("\n")
