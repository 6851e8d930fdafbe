<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>main</name>
    <message>
        <source>Plan and run training on heterogeneous, geo-distributed GPUs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scenario file to open (default: the built-in one).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Interface language: en or zh_CN.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run store (SQLite) to record runs in and list.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Take a screenshot of each main view into DIR, then quit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Job file to open beside the scenario (default: the built-in one).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sailor::studio::ClusterEditor</name>
    <message>
        <source>Cluster description</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Names the job and its objects: a DNS label (lower-case letters, digits and &apos;-&apos;) of at most 40 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The network interface cluster runs use (NCCL, Gloo and the rendezvous), e.g. eth0; empty: the workers&apos; default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The TCP port of the rendezvous on the first node (torchrun exports use the next one too)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The partition of pools that name none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The account of pools that name none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The QoS of pools that name none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The job&apos;s time limit: minutes, M:S, H:M:S, D-H, D-H:M or D-H:M:S; empty: the partition&apos;s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The namespace of pools that name none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The workers&apos; image of pools that name none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Network &amp;interface:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rendezvous &amp;port:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Slurm defaults</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Partition:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Account:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>QoS:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time limit:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kubernetes defaults</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Namespace:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Image:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The pool&apos;s zone, as in the scenario</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The pool&apos;s GPU type, as in the catalogue</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPUs/node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPUs per node; empty: the scenario&apos;s, else the catalogue&apos;s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Partition</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Slurm partition; empty: the default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GRES type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Slurm GRES type: --gres=gpu:TYPE:N; empty: --gres=gpu:N</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Constraint</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Slurm constraint (node features)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Account</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Slurm account; empty: the default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>QoS</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Slurm QoS; empty: the default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Node selector</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kubernetes node labels: key=value, key=value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Namespace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kubernetes namespace; empty: the default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Image</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The workers&apos; image; empty: the default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Remove rows</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add the &amp;plan&apos;s pools</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save &amp;As...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pools (one row per zone and GPU type):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A new cluster description (Save asks for a file)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>File: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No plan is selected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Adds a row for every pool of the selected plan that has no mapping yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every pool of the plan has a mapping</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Added %n pool(s) of the plan: fill in their scheduler fields</source>
        <translation>
            <numerusform>Added %n pool of the plan: fill in its scheduler fields</numerusform>
            <numerusform>Added %n pools of the plan: fill in their scheduler fields</numerusform>
        </translation>
    </message>
    <message>
        <source>Save the cluster description</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cluster descriptions (*.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the cluster description as</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add ro&amp;w</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sailor::studio::ComparisonView</name>
    <message>
        <source>Scenario</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU types</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zones</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Spot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Iteration (s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>USD/h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MFU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Days</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Total USD</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Goodput</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Failures</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Preemptions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hours lost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No plan: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>never</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 days, %3 USD (GPUs %4, egress %5, storage %6); checkpoint every %7 min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>days to train (whole run)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>total USD (whole run)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>deadline %1 days</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>budget %1 USD</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add scenarios and compare them for the job in the job panel.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Set the tokens to train in the job panel to compare days and total USD.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No scenario has a plan whose run finishes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: got the suffix &quot;%2&quot;, expected .png or .pdf</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: cannot write in %2 (%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: the plot could not be drawn into the file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: cannot replace the file</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sailor::studio::ComparisonWindow</name>
    <message>
        <source>Compare scenarios</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add current scenario</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The scenario as edited now, with the pools switched on now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add scenario file…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compare</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Plan every scenario for the job in the job panel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export CSV…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export plot…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scenarios</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add scenario files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scenarios (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add two or more scenarios, then Compare.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fix the highlighted fields in the job panel first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, %2 of %3 pools</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Compared %n scenario(s) for %1.</source>
        <translation>
            <numerusform>Compared %n scenario for %1.</numerusform>
            <numerusform>Compared %n scenarios for %1.</numerusform>
        </translation>
    </message>
    <message>
        <source>Planning %1 (%2 of %3)…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export comparison as CSV</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export comparison plot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PNG image (*.png);;PDF document (*.pdf)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sailor::studio::JobPanel</name>
    <message>
        <source>Expected a whole number ≥ %1, got &quot;%2&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expected a positive number, or empty for no limit; got &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Job</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Custom architecture…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A model from the catalogue (sailor catalog models) or your own architecture</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Custom architecture</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A name for this architecture</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Transformer blocks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hidden size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attention heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Must divide the hidden size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FFN size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Vocabulary</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Global batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sequences per iteration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sequence length</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>model default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens per sequence; empty: the model&apos;s default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fp32</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bf16 mixed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fp16 mixed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Precision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Adam</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SGD</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Objective and constraints</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Maximum throughput</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Minimum cost per iteration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Objective</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pareto frontier of throughput against cost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Also search the whole trade-off between throughput and cost per iteration (slower on large scenarios)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Max $ / iteration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compute and egress cost of one iteration, USD</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Max $ / hour</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU rental and egress per hour of training, USD</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Min iterations / s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lowest acceptable throughput</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Max GPUs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPUs the plan may use at most</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Plans listed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How many of the best plans the search returns</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expected a name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is a catalogue model; choose another name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Got %1, expected %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 layers, hidden %2, %3 heads, %4 B parameters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expected at most 100 plans, got %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>None</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Full</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recomputation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time limit (s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seconds a search may take; when they are up, the best plans found so far are shown, marked as such</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expected a percentage from 0 to %1, got &quot;%2&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Selective</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Activation recomputation: Full keeps only each block&apos;s input and recomputes its forward during backward (less memory, about a third more compute); Selective recomputes only the attention core (softmax and dropout over the score matrices)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory reserve (%)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Share of each GPU&apos;s memory kept free against the allocator&apos;s fragmentation; plans with less headroom are dropped or flagged (0: none)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Drop plans within it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Flag plans within it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Drop: the search keeps the reserve free and leaves out plans within it; Flag: it searches the whole memory and marks plans within the reserve</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Training budget</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens to train</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The whole run&apos;s tokens (e.g. 2e12): every plan then shows its days and total USD with failures and checkpoints priced in, and the plot can show days against total USD</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deadline (days)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Plans whose whole run takes longer are left out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Budget (USD)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Plans whose whole run costs more are left out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Needs the tokens to train: a deadline or budget applies to a whole run</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sailor::studio::LaunchPanel</name>
    <message>
        <source>Start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run the selected plan with the bundled runtime</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Interrupt the run: the workers are stopped and the run is recorded as stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Training iterations to run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Synthetic tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shipped text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Training data: a learnable synthetic byte stream, or the shipped public-domain text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>E&amp;lastic (re-plan when workers are lost or GPUs change)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Iterations:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Data:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This machine</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Slurm cluster</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where Start runs the plan: on this machine (a rehearsal on CPU processes, at most a few), or as one job on a Slurm cluster described by a cluster description file; Export writes the plan&apos;s launch files for Kubernetes, torchrun or Slurm instead</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cluster description (JSON)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>C&amp;luster...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the cluster description file (docs/formats.md)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit the cluster description: its pools&apos; partitions, GRES types, node selectors and defaults (a new one from the scenario&apos;s pools when none is chosen)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>partition (optional)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Submit every pool&apos;s tasks to this partition instead of the cluster description&apos;s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kubernetes manifests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>torchrun commands</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Slurm job script</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kubernetes: sailor.yaml (an indexed Job per pool); torchrun: hosts.txt and sailor-torchrun.sh; Slurm: sailor.sbatch (one heterogeneous job)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>directory to write the files into</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dire&amp;ctory...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the directory the launch files are written into</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Target:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write the selected plan&apos;s launch files into the directory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>default cluster description</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export the launch files to</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cluster description</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cluster descriptions (*.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run with sailor run --elastic (on this machine or a Slurm cluster): a lost worker, a preemption notice, or a resize, makes the run re-plan on the GPUs left and go on in place</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sailor::studio::LivePlots</name>
    <message>
        <source>starting</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ready</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>finished</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>paused</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>iteration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>loss (nats)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Training loss, mean over the global batch (cross-entropy, nats per token; ln 256 = 5.55 is a uniform guess over bytes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Iteration time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>seconds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>measured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens trained per second: global batch x sequence length / iteration time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time per stage</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Per stage, its slowest rank: compute (solid) and time spent waiting on transfers and collectives (dashed)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Peak memory per rank</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rank</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>peak memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Highest peak resident memory of each worker process so far (on CPU: the process&apos;s peak resident set)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rank</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stage</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replica</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TP rank</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PID</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>State</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last iteration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last report</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Local time of the last event about this worker</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The last iteration this worker reported, and its time for it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stage %1 compute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stage %1 communication</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2 s)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sailor::studio::MainWindow</name>
    <message>
        <source>Job and objective</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Selection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select a plan first (Plans tab)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resources</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Plans</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Planning…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Planning… %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Planning cancelled; the plans shown are from the previous search</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The default job could not be read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run store cannot be used: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;New from default scenario</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open scenario…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Save scenario</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save scenario &amp;as…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Export selected plan…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Plan now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Cancel planning</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Re-plan on every &amp;edit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open scenario</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scenario JSON (*.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save scenario</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save scenario as</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Main</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>default scenario</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1%2 — Sailor Studio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fix the highlighted fields in the job panel to plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No plan: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No plan to run</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n plan(s) · best %1 it/s, %2/iteration, %3 GPUs · %4 candidates in %5 s</source>
        <translation>
            <numerusform>%n plan · best %1 it/s, %2/iteration, %3 GPUs · %4 candidates in %5 s</numerusform>
            <numerusform>%n plans · best %1 it/s, %2/iteration, %3 GPUs · %4 candidates in %5 s</numerusform>
        </translation>
    </message>
    <message>
        <source>Planning failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runs need a catalogue model; %1 is a custom architecture</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This plan uses %1 GPUs; a local run starts one process per GPU, at most %2. Set &quot;Max GPUs&quot; to %2 to plan a run of this size.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This plan cannot run on this machine: it uses %1 GPUs (one process each, at most %2) with model %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run store cannot be read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run %1 cannot be read: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not open %1: %2. The scenario you were editing is unchanged.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not save %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The scenario has unsaved changes. Save them first?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The language changes when Sailor Studio is started again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not open %1: %2. The default scenario is shown instead.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run store cannot be used: %1: is a directory, expected a run store file (SQLite)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Some runs in %1 cannot be read: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: is a directory, expected a scenario JSON file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: no such file, expected a scenario JSON file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: cannot be read: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>best found within %1 s (time limit)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The search stopped at its time limit; these are the best plans found so far. Searched: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the cluster description file first</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the cluster description file of the cluster to run on.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the directory to write the launch files into</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Its controller is gone (%1) and its job %2 may still run: re-attach to follow it, and to stop it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wrote %1 to %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot be edited here: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start the run with Elastic checked to resize it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A resize is still under way; try again when it has answered.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not open %1: %2. The default job is shown instead.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not open %1: %2. The job you were editing is unchanged.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open &amp;job…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save jo&amp;b…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open job</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Job JSON (*.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save job</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open price &amp;catalogue…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A price sheet (sailor prices import) or a SkyPilot catalogue (its vms.csv) whose offers Add pool from catalogue lists</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add pool from &amp;catalogue…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a pool from a cloud catalogue&apos;s offers: GPU type, cloud, region, zone, on-demand and spot price</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>C&amp;ompare scenarios…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Plan several scenarios for this job and compare them side by side</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open price catalogue</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Price sheets and SkyPilot catalogues (*.json vms.csv);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 has no catalogue offers (a price sheet from `sailor prices import`, or a SkyPilot catalogue)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot read the price catalogue %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sailor::studio::OfferPicker</name>
    <message>
        <source>Add pool from catalogue</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The price sheet has no catalogue offers.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, dated %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add pool</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPUs:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All GPU types</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All clouds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Region, zone or instance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cloud</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Region</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Instance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPUs per instance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>On-demand $/GPU-h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Spot $/GPU-h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The GPUs of the new pool</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Spot price</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Price the pool at the offer&apos;s spot price (preemptible instances)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>—</source>
        <comment>no zone, or no spot price</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No offer matches the filters.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose an offer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2 in %3 at %4 $/GPU-hour spot (%5, %6)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2 in %3 at %4 $/GPU-hour (%5, %6)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sailor::studio::PastRunsView</name>
    <message>
        <source>ID</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Iterations</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Final loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runs recorded in the run store; double-click one to show it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the selected run&apos;s metrics and events</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read the list of runs from the run store again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Re-&amp;attach</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>finished</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sailor::studio::PlanInspector</name>
    <message>
        <source>%1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 µs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 GiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1× %2 tp%3 @ %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Backward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send/receive</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All-reduce</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>same zone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>same region</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>same continent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>across continents</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>E&amp;xport plan…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the plan as JSON, the format `sailor simulate --plan` reads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stage</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replicas</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>DP degree</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Microbatches</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forward (ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Backward (ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Straggler</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replicas of one kind: count × GPU type, tensor-parallel degree @ zone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Microbatches each replica processes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forward time of one microbatch on the stage&apos;s slowest replica</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Backward time of one microbatch on the stage&apos;s slowest replica</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The replica whose compute sets the stage&apos;s time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stages</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Part</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seconds per iteration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Share</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>USD per iteration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>USD per hour</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>From zone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>To zone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Relation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GB per iteration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>USD per GB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Egress by zone pair</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, stage %2, microbatch %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, stage %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 – %2 ms (%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No plan selected: pick one on the trade-off plot.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 GPUs in 1 stage</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 GPUs in %2 stages</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;Iteration %1&lt;/b&gt; · %2 it/s · %3 tokens/s · &lt;b&gt;%4 per iteration&lt;/b&gt; · %5 per hour · %6 · peak memory %7 of %8</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>does not fit in memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (1 layer)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1–%2 (%3 layers)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 GPUs of %3 (%4 memory each)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>#%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>#%1: %2 tp%3 @ %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model states</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Activations</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Transient</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runtime overhead</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, over capacity</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Over capacity</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Capacity</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stage %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory per GPU (GiB)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Does not fit in memory:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pipeline bubble</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Point-to-point</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Data-parallel sync</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Iteration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The planner&apos;s own model estimated %1 and %2 per iteration for this plan; the figures above are the simulator&apos;s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPUs (compute)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Egress</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Total</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stage %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time in the iteration (ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Map</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No plan to export.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Plans (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export &amp;timeline…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the simulated schedule as a Chrome trace, to open in ui.perfetto.dev or chrome://tracing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No timeline to export.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export timeline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chrome traces (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where the iteration goes on stage %1, the busiest (the other stages wait longer):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where the iteration goes:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Busy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Share of the iteration the stage computes, transfers or synchronises; the rest it waits for other stages. The busiest stage is the bottleneck (the Time tab&apos;s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gradient bucket</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU types</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GB/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Latency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Source</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Link</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Links (where each figure comes from)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> · schedule: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> · MFU %1 % (model %2 TFLOP/s per GPU)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>pipeline %1 → %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>data-parallel, stage %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tied embedding</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (same node)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reduction overlapped with the backward</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sailor::studio::PlanningService</name>
    <message>
        <source>unknown error in the planner</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sailor::studio::PredictionView</name>
    <message>
        <source>Measured: the slowest rank&apos;s time per iteration. Dashed: the run&apos;s prediction for the hardware it runs on (the simulator on the local device&apos;s profile, sailor profile) when it recorded one. Before a run starts it is the plan&apos;s predicted iteration time on the plan&apos;s GPUs; a run without a prediction of its own (a scaled-down model on CPU processes, or a device without a profile) gets no line, since the plan&apos;s figure is for other hardware. The Prediction tab has the figures side by side.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quantity</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Measured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run&apos;s prediction for the hardware it runs on (the local device&apos;s profile) against what it measured: medians of the iterations after warm-up (the first 2). Compute: the stage&apos;s slowest rank&apos;s forward, backward and optimizer (tensor-parallel all-reduces included); communication: the rest of its iteration (transfers, data-parallel sync, waiting).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>predicted %1 s %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no prediction for this run&apos;s device; the plan&apos;s %1 s is for its %2, not comparable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>predicted %1 s for the plan&apos;s GPUs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No run shown.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This run recorded no prediction for its hardware (recorded before runs had one).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: no iteration measured yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; measured: median of iterations %2-%3 (the first %4 are warm-up)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sailor::studio::PropertyPanel</name>
    <message>
        <source>Region: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zone: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pool: %1 in %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Link: %1 ↔ %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scenario: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Applied when the field loses focus</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Description</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;Defaults by relation&lt;/b&gt;&lt;br&gt;For zone pairs without a declared link: bandwidth (GB/s), latency (s) and egress ($/GB).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GB/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>latency (s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>$/GB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bandwidth between nodes, %1 (GB/s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter a number in GB/s (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Latency, %1 (seconds)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter a number in seconds (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Egress price, %1 ($/GB)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter a number in $/GB (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 ↔ %2: $%3/GB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Other egress prices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Continent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zones on the same continent use the same-continent defaults; others the across-continents ones</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zones</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deleting a region deletes its zones with their pools and links.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Renaming updates the zone&apos;s pools, links and egress prices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Region</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1× %2%3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (spot)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pools</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n GPU(s))</source>
        <translation>
            <numerusform>%1 (%n GPU)</numerusform>
            <numerusform>%1 (%n GPUs)</numerusform>
        </translation>
    </message>
    <message>
        <source>Links to</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deleting a zone deletes its pools, links and egress prices.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, %2 GB, %3 GPUs per node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter a whole number of GPUs (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPUs of this type available in the zone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>$/GPU-hour</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter a price in $/GPU-hour (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Price per GPU per hour, US dollars</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Spot (preemptible)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pricing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPUs per node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter a whole number of GPUs per node, or nothing for the catalogue&apos;s (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Empty: the GPU type&apos;s usual node size from the catalogue</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>catalogue: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>catalogue default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 ↔ %2 (%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Applies to</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 → %2%3</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>, %n GPU(s) per node sending</source>
        <translation>
            <numerusform>, %n GPU per node sending</numerusform>
            <numerusform>, %n GPUs per node sending</numerusform>
        </translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SAILOR fit (imported): %1·x² + %2·x + %3 GB/s with x = log2(MB), cap %4 GB/s. Changing bandwidth or latency replaces it with a latency + bandwidth model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bandwidth (GB/s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Aggregate bandwidth between two nodes of these zones, one direction</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Latency (s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One-way latency in seconds (e.g. 0.03 for 30 ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Egress ($/GB)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter a price in $/GB (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Egress price between these zones, both directions; empty: the default for their relation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>default: %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The GPU type&apos;s default: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, %2 GPUs per node, %3 Gb/s per node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Instance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 GB/s per node, %2 us latency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 GB/s per node at 64 MB (SAILOR fit)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>source: %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Between nodes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Preemptible GPUs at the spot price</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Owned (our own GPUs)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The team&apos;s own GPUs beside rented ones: never preempted, priced at their amortised $/GPU-hour (0 for none)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Planning</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use in planning</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unchecked: the pool stays in the scenario but plans leave it out (compare offers without copying files)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Preemptions / GPU-hour</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter preemptions per GPU-hour from 0 to 1, or nothing (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Spot pools: how often a GPU is taken away, which the whole run prices in; empty: not priced in</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not priced in</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rate from trace…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read the rate from an availability trace (SAILOR&apos;s CSV or JSON): GPUs taken away over GPU-hours held</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Availability trace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Traces (*.csv *.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rate source</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Amortised</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 USD a GPU over %2 years + %3 USD/GPU-hour running = %4 USD/GPU-hour</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select a spot pool first</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: got %2, expected %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Make the pool spot first: a preemption rate is a spot pool&apos;s</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sailor::studio::ReconfigurationView</name>
    <message>
        <source>Iteration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Event</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cause</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>State from</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Iterations lost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Phases / reason</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Plan before → after</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run&apos;s changes of world: when GPUs came or went (an availability trace, a resize) or a worker was lost, the run re-planned and reconfigured its workers in place; a pause waits for resources. Hover a row for its detail and both plans.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resi&amp;ze...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>trace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>resize</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>worker lost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1→%2 GPUs (%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>re-plan %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>teardown %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>launch %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>groups %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rebuild %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>transfer %1 (%2 MB)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>total %1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stage %1 (layers %2-%3): %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n GPU(s), microbatch %1: %2</source>
        <translation>
            <numerusform>%n GPU, microbatch %1: %2</numerusform>
            <numerusform>%n GPUs, microbatch %1: %2</numerusform>
        </translation>
    </message>
    <message>
        <source>reconfigured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>checkpoint</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>peers</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n GPU(s)</source>
        <translation>
            <numerusform>%n GPU</numerusform>
            <numerusform>%n GPUs</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>in %n stage(s)</source>
        <translation>
            <numerusform>in %n stage</numerusform>
            <numerusform>in %n stages</numerusform>
        </translation>
    </message>
    <message>
        <source>%1
Generation %2, from iteration %3.
Before: %4
After: %5
%6</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Paused: waiting for resources: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cause: %1. The workers keep their state; the run goes on at iteration %2 when enough resources return (a reconfiguration follows).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>paused</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tell the run how many GPUs it has now: it re-plans and goes on</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only an elastic run of this machine that is running can be resized</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sailor::studio::ResizeDialog</name>
    <message>
        <source>Resize run %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The GPUs the run has now in each zone. The run re-plans on them and goes on without restarting the workers that stay.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 in the scenario&apos;s pool</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 in %2:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Resize</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sailor::studio::ResourceCanvas</name>
    <message>
        <source>Add region</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a region with one zone (same continent as the selected region)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add zone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a zone to the selected region</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add pool</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a GPU pool (8 GPUs) to the selected zone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add link</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S%1: %2× %3 tp%4</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Region %1 (%2): %n zone(s)</source>
        <translation>
            <numerusform>Region %1 (%2): %n zone</numerusform>
            <numerusform>Region %1 (%2): %n zones</numerusform>
        </translation>
    </message>
    <message>
        <source>Zone %1 in %2 (%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>spot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1× %2 · $%3/h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 pool in %2: %3 GPUs at $%4 per GPU-hour, %5; %6 GPUs per node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>on demand</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no pools</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 GB/s · $%2/GB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>≤%1 GB/s (fit) · $%2/GB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1→%2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> ×%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Link %1 ↔ %2 (%3)
%4
Egress $%5/GB (%6)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 GB/s, latency %2 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SAILOR fit: bandwidth = %1·x² + %2·x + %3 GB/s, x = log2(MB), cap %4 GB/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this pair</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 in %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The map is read-only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select a region (or one of its zones) first</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select a zone first</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zone %1 already has a pool of every GPU type in the catalogue</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Select two zones for a link: click one, Ctrl+click the other (%n selected)</source>
        <translation>
            <numerusform>Select two zones for a link: click one, Ctrl+click the other (%n selected)</numerusform>
            <numerusform>Select two zones for a link: click one, Ctrl+click the other (%n selected)</numerusform>
        </translation>
    </message>
    <message>
        <source>Select something to delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the selected regions, zones, pools and links (with what they hold) in one step; Ctrl+click selects several</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a network link between the two selected zones: click one zone, then Ctrl+click the other (or drag from one zone onto the other)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No zone pair %1, %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>owned</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Switched off: kept in the scenario, left out of planning</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sailor::studio::RunClient</name>
    <message>
        <source>Cannot create a temporary directory for the run&apos;s files: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot write %1 for the run.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot start the runtime: %1 is not an executable file (install sailor next to the studio, or point $SAILOR_BIN at it).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot start the runtime %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unreadable event from sailor run (line skipped): %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped before the run started.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Stopped: sailor run did not end within %n second(s) of the interrupt and was killed.</source>
        <translation>
            <numerusform>Stopped: sailor run did not end within %n second of the interrupt and was killed.</numerusform>
            <numerusform>Stopped: sailor run did not end within %n seconds of the interrupt and was killed.</numerusform>
        </translation>
    </message>
    <message>
        <source>sailor run ended abnormally (killed by a signal).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sailor run ended abnormally (killed by a signal): %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run could not be recorded, nothing was started: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sailor run refused its input, nothing was started: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(no message)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Stopped after %n iteration(s).</source>
        <translation>
            <numerusform>Stopped after %n iteration.</numerusform>
            <numerusform>Stopped after %n iterations.</numerusform>
        </translation>
    </message>
    <message>
        <source>sailor run exited with code %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sailor run exited with code %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sailor runs attach refused, nothing was taken over: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sailor runs resize ended abnormally (killed by a signal).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sailor runs resize: done</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sailor runs resize exited with code %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot start %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sailor::studio::RunMonitor</name>
    <message>
        <source>Workers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Log</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Past runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run %1 (%2): %3 processes, %4 iterations, %5 data, %6; model %7 scaled to hidden %8, sequence %9</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rank %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n worker process(es) started</source>
        <translation>
            <numerusform>%n worker process started</numerusform>
            <numerusform>%n worker processes started</numerusform>
        </translation>
    </message>
    <message>
        <source>workers ready (%1) after %2 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rank %1 failed (stage %2, replica %3, tp rank %4): %5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last lines of its stderr:
%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>error: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>run %1 after %n iteration(s), %2 s</source>
        <translation>
            <numerusform>run %1 after %n iteration, %2 s</numerusform>
            <numerusform>run %1 after %n iterations, %2 s</numerusform>
        </translation>
    </message>
    <message>
        <source>stored event %1 (%2) could not be read: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stored iteration %1 could not be read: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No run yet: choose a plan and press Start, or open a past run.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stored run %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>iteration %1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>loss %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 s per iteration</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n worker(s) starting</source>
        <translation>
            <numerusform>%n worker starting</numerusform>
            <numerusform>%n workers starting</numerusform>
        </translation>
    </message>
    <message>
        <source>bf16 compute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SGD with momentum</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>AdamW</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>activations recomputed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run directory: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 job %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, run directory %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Slurm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>state unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reconfigurations</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n worker process(es) joining (generation %1)</source>
        <translation>
            <numerusform>%n worker process joining (generation %1)</numerusform>
            <numerusform>%n worker processes joining (generation %1)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>checkpoint of iteration %1: %n shard(s), %2 MB in %3 s (%4)</source>
        <translation>
            <numerusform>checkpoint of iteration %1: %n shard, %2 MB in %3 s (%4)</numerusform>
            <numerusform>checkpoint of iteration %1: %n shards, %2 MB in %3 s (%4)</numerusform>
        </translation>
    </message>
    <message>
        <source>; removed the checkpoints of iterations %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>resumed from iteration %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>resumed at iteration %1 from %2 (%n stored iteration(s) discarded)</source>
        <translation>
            <numerusform>resumed at iteration %1 from %2 (%n stored iteration discarded)</numerusform>
            <numerusform>resumed at iteration %1 from %2 (%n stored iterations discarded)</numerusform>
        </translation>
    </message>
    <message>
        <source>checkpoint</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>peers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>since iteration %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>reconfigured at iteration %1: %2: %3; state from %4, %n iteration(s) lost</source>
        <translation>
            <numerusform>reconfigured at iteration %1: %2: %3; state from %4, %n iteration lost</numerusform>
            <numerusform>reconfigured at iteration %1: %2: %3; state from %4, %n iterations lost</numerusform>
        </translation>
    </message>
    <message>
        <source>plan before: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>plan after: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>paused before iteration %1 (%2): waiting for resources: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>paused: waiting for resources</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Prediction</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Prediction %1: %2 s per iteration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>overlapped gradient reduction</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>distributed optimizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 model chunks per GPU (interleaved 1F1B)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sailor::studio::ScenarioDocument</name>
    <message>
        <source>%1: got %2, expected %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bandwidth must be &gt; 0 GB/s (got %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Latency must be ≥ 0 s (got %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A fitted link&apos;s cap must be &gt; 0 B/s (got %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Missing default link for %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Default egress must be ≥ 0 $/GB (got %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>nothing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Region %1 needs a continent (got an empty name)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A zone name must not be empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zone &quot;%1&quot; is not in the scenario (expected one of: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unknown GPU type &quot;%1&quot; (expected one of: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU count must be ≥ 0 (got %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Price must be ≥ 0 $/GPU-hour (got %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPUs per node must be ≥ 1 (got %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot read %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not valid JSON: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: expected a JSON object with regions, pools and network</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2: got %3, expected %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No resources: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The scenario needs a name (got an empty name)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rename scenario to %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit description</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A region needs a name (got an empty name)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Region name &quot;%1&quot; is already used (expected a new name)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A region needs a continent (got an empty name)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A zone needs a name (got an empty name)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zone name &quot;%1&quot; is already used (expected a new name)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add region %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No region %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rename region to %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Set continent of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A scenario needs at least one region: add another before removing %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove region %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add zone %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No zone &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rename zone %1 to %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Region %1 needs at least one zone: remove the region instead of its last zone %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove zone %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zone %1 already has a %2 pool (expected one pool per zone and GPU type)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add %1 pool in %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No pool %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit %1 pool in %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove %1 pool in %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Egress must be ≥ 0 $/GB (got %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A link joins two different zones (got %1 twice); links inside a zone use the same-zone default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 and %2 are already linked (edit that link instead)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add link %1 ↔ %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No link %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit link %1 ↔ %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove link %1 ↔ %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No zone pair %1, %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Set egress %1 ↔ %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit default link (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit default egress (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>same zone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>same region</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>same continent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>across continents</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only regions, zones, pools and links can be removed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select something to delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Remove %n items</source>
        <translation>
            <numerusform>Remove %n item</numerusform>
            <numerusform>Remove %n items</numerusform>
        </translation>
    </message>
    <message>
        <source>Add %1 %2 from %3 in %4</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sailor::studio::TradeoffPlot</name>
    <message>
        <source>iterations/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>USD per iteration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>USD per hour</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>USD per million tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Throughput in</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Cost in</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pareto frontier</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Other Pareto plans</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Top plans</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Best plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Selected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1× %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Top plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pareto plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, on the displayed frontier</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Plan %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stages: %1, microbatch size %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPUs: %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Throughput: %1 it/s, %2 tokens/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cost: $%1 per iteration, $%2 per hour</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Best plan (minimum cost per iteration)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Best plan (maximum throughput)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pareto frontier (in the displayed units)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cost (USD per iteration)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cost (USD per hour)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cost (USD per million tokens)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Throughput (tokens/s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Throughput (iterations/s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max $%1 per iteration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max $%1 per hour</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>min %1 iterations/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Constraints: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No planner result yet: plan to see the trade-off between throughput and cost.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No plan: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The planner returned no plan.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Knee: cheapest within 1% / 5% of the best throughput</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, the knee: the cheapest frontier plan %1 of the best throughput</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>within %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the best plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the fastest frontier plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>within %1 of its throughput, %2 itself</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>within %1, plan %2 (%3 GPUs, $%4 per iteration, %5% cheaper)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Knee: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1% more</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>$%1 more</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 buys %2% more throughput than the next-cheaper frontier plan (%3 GPUs) for %4 per iteration.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The best plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The fastest frontier plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>days to train (whole run)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>total USD (whole run)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Whole run: %1 days, $%2 in total, %3% of the time training</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cost of the whole run (USD, failures included)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>deadline %1 days</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>budget $%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Set the tokens to train in the job panel to see each plan&apos;s whole run: days and total USD, failures included.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Days to train (fewer above)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
