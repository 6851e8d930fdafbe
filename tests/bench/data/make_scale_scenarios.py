#!/usr/bin/env python3
"""Writes the cluster-scale scenarios of the planner's speed targets (docs/benchmarks.md, "Planner at
cluster scale") into this directory:

  zones5x5-N.json   N zones (N = 5, 10, 20) of 5 pools each (A100-40, A100-80, H100-80, V100-16,
                    L4; 8 to 32 GPUs), 4 zones to a region (2 to 5 regions on two continents)
  zones5x5-N-own-region.json   the same pools, every zone a region of its own (the worst case
                    for H6, which pools a region's zones of one type)
  types3-zones5-480.json   A100-40, A100-80 and H100-80 in 5 zones of 2 regions, 32 GPUs each
  types8-zones20-G.json   8 bf16 GPU types (A100-40, A100-80, H100-80, H200-141, GH-96, L4, A10G,
                    MI300X) in 20 zones of 5 regions, G GPUs in all (G = 480, 3840, 4096)

Prices are GCP-like list prices (resources/prices/default.json where it has the type, otherwise
rounded public figures), scaled per region (1.00 to 1.20); counts are whole nodes. Deterministic:
rerunning writes the same files.  Usage: python3 make_scale_scenarios.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

PRICE = {"A100-40": 3.673385, "A100-80": 5.07, "H100-80": 11.06125, "H200-141": 13.0,
         "GH-96": 9.0, "V100-16": 2.859998, "L4": 0.706832, "A10G": 1.006, "MI300X": 6.0}
NODE = {"GH-96": 4}
REGIONS = [("us-central1", "north-america", 1.00), ("us-east4", "north-america", 1.05),
           ("us-west1", "north-america", 1.00), ("europe-west4", "europe", 1.12),
           ("europe-west1", "europe", 1.10)]


def network():
    return {"defaults": {"same_zone": {"latency_s": 1e-5, "bandwidth_gb_per_s": 6.0},
                         "same_region": {"latency_s": 1e-4, "bandwidth_gb_per_s": 5.0},
                         "same_continent": {"latency_s": 0.02, "bandwidth_gb_per_s": 1.0},
                         "cross_continent": {"latency_s": 0.08, "bandwidth_gb_per_s": 0.5}},
            "links": []}


def egress():
    return {"defaults": {"same_zone": 0.0, "same_region": 0.01, "same_continent": 0.02,
                         "cross_continent": 0.08}, "pairs": []}


def layout(zones, per_region, own_region):
    """[(region name, continent, price factor, [zone names])]"""
    out = []
    if own_region:
        for z in range(zones):
            name, cont, f = REGIONS[z % len(REGIONS)]
            out.append((f"{name}-r{z // len(REGIONS)}", cont, f, [f"{name}-r{z // len(REGIONS)}-a"]))
        return out
    n_regions = max(2, min(len(REGIONS), -(-zones // per_region)))
    for r in range(n_regions):
        name, cont, f = REGIONS[r]
        out.append((name, cont, f, []))
    for z in range(zones):
        r = z % n_regions
        out[r][3].append(f"{out[r][0]}-{chr(ord('a') + len(out[r][3]))}")
    return out


def scenario(name, description, regions, pools):
    return {"name": name, "description": description,
            "regions": [{"name": n, "continent": c, "zones": zs} for n, c, _, zs in regions],
            "pools": pools, "network": network(), "egress_usd_per_gb": egress()}


def zones5x5(zones, own_region):
    types = ["A100-40", "A100-80", "H100-80", "V100-16", "L4"]
    counts = [16, 32, 8, 24, 16]
    regions = layout(zones, 4, own_region)
    pools = []
    zi = 0
    for _, _, f, zs in regions:
        for z in zs:
            for ti, t in enumerate(types):
                pools.append({"zone": z, "gpu_type": t, "count": counts[(ti + zi) % len(counts)],
                              "usd_per_gpu_hour": round(PRICE[t] * f, 6), "spot": False})
            zi += 1
    suffix = "-own-region" if own_region else ""
    how = "every zone its own region" if own_region else f"{len(regions)} regions"
    return (f"zones5x5-{zones}{suffix}",
            scenario(f"zones5x5-{zones}{suffix}",
                     f"{zones} zones ({how}) of 5 pools each (pool-count scaling)",
                     regions, pools))


def types8(total):
    types = ["A100-40", "A100-80", "H100-80", "H200-141", "GH-96", "L4", "A10G", "MI300X"]
    regions = layout(20, 4, False)
    zone_list = [z for _, _, _, zs in regions for z in zs]
    n = len(types) * len(zone_list)
    # Whole nodes of 8 (GH-96: 4), as even as the total allows, the remainder to the first pools.
    base = total // n // 8 * 8
    left = total - base * n
    pools = []
    i = 0
    for _, _, f, zs in regions:
        for z in zs:
            for t in types:
                c = base
                step = NODE.get(t, 8)
                if left >= 8:
                    c += 8
                    left -= 8
                pools.append({"zone": z, "gpu_type": t, "count": c,
                              "usd_per_gpu_hour": round(PRICE[t] * f, 6), "spot": False,
                              "gpus_per_node": step})
                i += 1
    assert sum(p["count"] for p in pools) == total, (total, sum(p["count"] for p in pools))
    return (f"types8-zones20-{total}",
            scenario(f"types8-zones20-{total}",
                     f"8 bf16 GPU types in 20 zones of {len(regions)} regions, {total} GPUs",
                     regions, pools))


def types3():
    types = ["A100-40", "A100-80", "H100-80"]
    regions = layout(5, 4, False)
    pools = [{"zone": z, "gpu_type": t, "count": 32, "usd_per_gpu_hour": round(PRICE[t] * f, 6),
              "spot": False} for _, _, f, zs in regions for z in zs for t in types]
    return ("types3-zones5-480",
            scenario("types3-zones5-480", "3 GPU types in 5 zones of 2 regions, 480 GPUs",
                     regions, pools))


def main():
    out = [zones5x5(z, own) for z in (5, 10, 20) for own in (False, True)]
    out += [types3()] + [types8(g) for g in (480, 3840, 4096)]
    for name, sc in out:
        with open(os.path.join(HERE, name + ".json"), "w") as fh:
            json.dump(sc, fh, indent=1)
            fh.write("\n")
    jobs = {"job-llama3-70b-bf16": {"model": "Llama-3-70B", "global_batch_size": 1024,
                                    "sequence_length": 2048, "precision": "bf16",
                                    "optimizer": "adam"},
            "job-llama3-8b-bf16": {"model": "Llama-3-8B", "global_batch_size": 1024,
                                   "sequence_length": 2048, "precision": "bf16",
                                   "optimizer": "adam"}}
    for name, j in jobs.items():
        with open(os.path.join(HERE, name + ".json"), "w") as fh:
            json.dump(j, fh, indent=1)
            fh.write("\n")


if __name__ == "__main__":
    main()
