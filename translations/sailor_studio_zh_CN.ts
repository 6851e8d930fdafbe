<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>main</name>
    <message>
        <source>Plan and run training on heterogeneous, geo-distributed GPUs.</source>
        <translation>在异构、跨地域分布的 GPU 上规划并运行训练。</translation>
    </message>
    <message>
        <source>Scenario file to open (default: the built-in one).</source>
        <translation>要打开的场景文件（默认：内置场景）。</translation>
    </message>
    <message>
        <source>Interface language: en or zh_CN.</source>
        <translation>界面语言：en 或 zh_CN。</translation>
    </message>
    <message>
        <source>Run store (SQLite) to record runs in and list.</source>
        <translation>用于记录和列出运行的运行记录库（SQLite）。</translation>
    </message>
    <message>
        <source>Take a screenshot of each main view into DIR, then quit.</source>
        <translation>将每个主视图截图保存到 DIR，然后退出。</translation>
    </message>
    <message>
        <source>Job file to open beside the scenario (default: the built-in one).</source>
        <translation>与场景一同打开的作业文件（默认：内置作业）。</translation>
    </message>
</context>
<context>
    <name>sailor::studio::ClusterEditor</name>
    <message>
        <source>Cluster description</source>
        <translation>集群描述</translation>
    </message>
    <message>
        <source>Names the job and its objects: a DNS label (lower-case letters, digits and &apos;-&apos;) of at most 40 bytes</source>
        <translation>用于命名作业及其对象：DNS 标签（小写字母、数字和 &apos;-&apos;），最多 40 字节</translation>
    </message>
    <message>
        <source>The network interface cluster runs use (NCCL, Gloo and the rendezvous), e.g. eth0; empty: the workers&apos; default</source>
        <translation>集群运行使用的网络接口（NCCL、Gloo 和汇合点），例如 eth0；留空：使用工作进程的默认值</translation>
    </message>
    <message>
        <source>The TCP port of the rendezvous on the first node (torchrun exports use the next one too)</source>
        <translation>第一个节点上汇合点的 TCP 端口（torchrun 导出还会使用下一个端口）</translation>
    </message>
    <message>
        <source>The partition of pools that name none</source>
        <translation>未指定分区的资源池使用的分区</translation>
    </message>
    <message>
        <source>The account of pools that name none</source>
        <translation>未指定账户的资源池使用的账户</translation>
    </message>
    <message>
        <source>The QoS of pools that name none</source>
        <translation>未指定 QoS 的资源池使用的 QoS</translation>
    </message>
    <message>
        <source>The job&apos;s time limit: minutes, M:S, H:M:S, D-H, D-H:M or D-H:M:S; empty: the partition&apos;s</source>
        <translation>作业的时间限制：分钟、M:S、H:M:S、D-H、D-H:M 或 D-H:M:S；留空：使用分区的限制</translation>
    </message>
    <message>
        <source>The namespace of pools that name none</source>
        <translation>未指定命名空间的资源池使用的命名空间</translation>
    </message>
    <message>
        <source>The workers&apos; image of pools that name none</source>
        <translation>未指定镜像的资源池中工作进程使用的镜像</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>名称(&amp;N)：</translation>
    </message>
    <message>
        <source>Network &amp;interface:</source>
        <translation>网络接口(&amp;I)：</translation>
    </message>
    <message>
        <source>Rendezvous &amp;port:</source>
        <translation>汇合端口(&amp;P)：</translation>
    </message>
    <message>
        <source>Slurm defaults</source>
        <translation>Slurm 默认值</translation>
    </message>
    <message>
        <source>Partition:</source>
        <translation>分区：</translation>
    </message>
    <message>
        <source>Account:</source>
        <translation>账户：</translation>
    </message>
    <message>
        <source>QoS:</source>
        <translation>QoS：</translation>
    </message>
    <message>
        <source>Time limit:</source>
        <translation>时间限制：</translation>
    </message>
    <message>
        <source>Kubernetes defaults</source>
        <translation>Kubernetes 默认值</translation>
    </message>
    <message>
        <source>Namespace:</source>
        <translation>命名空间：</translation>
    </message>
    <message>
        <source>Image:</source>
        <translation>镜像：</translation>
    </message>
    <message>
        <source>Zone</source>
        <translation>可用区</translation>
    </message>
    <message>
        <source>The pool&apos;s zone, as in the scenario</source>
        <translation>资源池的可用区，与场景中一致</translation>
    </message>
    <message>
        <source>GPU type</source>
        <translation>GPU 类型</translation>
    </message>
    <message>
        <source>The pool&apos;s GPU type, as in the catalogue</source>
        <translation>资源池的 GPU 类型，与目录中一致</translation>
    </message>
    <message>
        <source>GPUs/node</source>
        <translation>GPU/节点</translation>
    </message>
    <message>
        <source>GPUs per node; empty: the scenario&apos;s, else the catalogue&apos;s</source>
        <translation>每节点 GPU 数；留空：使用场景中的值，否则使用目录中的值</translation>
    </message>
    <message>
        <source>Partition</source>
        <translation>分区</translation>
    </message>
    <message>
        <source>Slurm partition; empty: the default</source>
        <translation>Slurm 分区；留空：使用默认值</translation>
    </message>
    <message>
        <source>GRES type</source>
        <translation>GRES 类型</translation>
    </message>
    <message>
        <source>Slurm GRES type: --gres=gpu:TYPE:N; empty: --gres=gpu:N</source>
        <translation>Slurm GRES 类型：--gres=gpu:TYPE:N；留空：--gres=gpu:N</translation>
    </message>
    <message>
        <source>Constraint</source>
        <translation>约束</translation>
    </message>
    <message>
        <source>Slurm constraint (node features)</source>
        <translation>Slurm 约束（节点特性）</translation>
    </message>
    <message>
        <source>Account</source>
        <translation>账户</translation>
    </message>
    <message>
        <source>Slurm account; empty: the default</source>
        <translation>Slurm 账户；留空：使用默认值</translation>
    </message>
    <message>
        <source>QoS</source>
        <translation>QoS</translation>
    </message>
    <message>
        <source>Slurm QoS; empty: the default</source>
        <translation>Slurm QoS；留空：使用默认值</translation>
    </message>
    <message>
        <source>Node selector</source>
        <translation>节点选择器</translation>
    </message>
    <message>
        <source>Kubernetes node labels: key=value, key=value</source>
        <translation>Kubernetes 节点标签：key=value, key=value</translation>
    </message>
    <message>
        <source>Namespace</source>
        <translation>命名空间</translation>
    </message>
    <message>
        <source>Kubernetes namespace; empty: the default</source>
        <translation>Kubernetes 命名空间；留空：使用默认值</translation>
    </message>
    <message>
        <source>Image</source>
        <translation>镜像</translation>
    </message>
    <message>
        <source>The workers&apos; image; empty: the default</source>
        <translation>工作进程的镜像；留空：使用默认值</translation>
    </message>
    <message>
        <source>&amp;Remove rows</source>
        <translation>删除行(&amp;E)</translation>
    </message>
    <message>
        <source>Add the &amp;plan&apos;s pools</source>
        <translation>添加方案的资源池(&amp;P)</translation>
    </message>
    <message>
        <source>Save &amp;As...</source>
        <translation>另存为(&amp;A)...</translation>
    </message>
    <message>
        <source>Pools (one row per zone and GPU type):</source>
        <translation>资源池（每个可用区和 GPU 类型一行）：</translation>
    </message>
    <message>
        <source>A new cluster description (Save asks for a file)</source>
        <translation>新的集群描述（保存时会询问文件）</translation>
    </message>
    <message>
        <source>File: %1</source>
        <translation>文件：%1</translation>
    </message>
    <message>
        <source>No plan is selected</source>
        <translation>未选择方案</translation>
    </message>
    <message>
        <source>Adds a row for every pool of the selected plan that has no mapping yet</source>
        <translation>为所选方案中尚无映射的每个资源池添加一行</translation>
    </message>
    <message>
        <source>Every pool of the plan has a mapping</source>
        <translation>方案的每个资源池都已有映射</translation>
    </message>
    <message numerus="yes">
        <source>Added %n pool(s) of the plan: fill in their scheduler fields</source>
        <translation>
            <numerusform>已添加方案的 %n 个资源池：请填写其调度器字段</numerusform>
        </translation>
    </message>
    <message>
        <source>Save the cluster description</source>
        <translation>保存集群描述</translation>
    </message>
    <message>
        <source>Cluster descriptions (*.json)</source>
        <translation>集群描述 (*.json)</translation>
    </message>
    <message>
        <source>Save the cluster description as</source>
        <translation>集群描述另存为</translation>
    </message>
    <message>
        <source>Add ro&amp;w</source>
        <translation>添加行(&amp;W)</translation>
    </message>
</context>
<context>
    <name>sailor::studio::ComparisonView</name>
    <message>
        <source>Scenario</source>
        <translation>场景</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 数</translation>
    </message>
    <message>
        <source>GPU types</source>
        <translation>GPU 类型</translation>
    </message>
    <message>
        <source>Zones</source>
        <translation>可用区</translation>
    </message>
    <message>
        <source>Spot</source>
        <translation>竞价</translation>
    </message>
    <message>
        <source>Iteration (s)</source>
        <translation>迭代 (s)</translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation>token/s</translation>
    </message>
    <message>
        <source>USD/h</source>
        <translation>美元/小时</translation>
    </message>
    <message>
        <source>MFU</source>
        <translation>MFU</translation>
    </message>
    <message>
        <source>Days</source>
        <translation>天数</translation>
    </message>
    <message>
        <source>Total USD</source>
        <translation>总美元</translation>
    </message>
    <message>
        <source>Goodput</source>
        <translation>有效训练占比</translation>
    </message>
    <message>
        <source>Failures</source>
        <translation>故障</translation>
    </message>
    <message>
        <source>Preemptions</source>
        <translation>抢占</translation>
    </message>
    <message>
        <source>Hours lost</source>
        <translation>损失小时</translation>
    </message>
    <message>
        <source>No plan: %1</source>
        <translation>无可行方案：%1</translation>
    </message>
    <message>
        <source>never</source>
        <translation>无法完成</translation>
    </message>
    <message>
        <source>%1: %2 days, %3 USD (GPUs %4, egress %5, storage %6); checkpoint every %7 min</source>
        <translation>%1：%2 天，%3 美元（GPU %4，出口流量 %5，存储 %6）；每 %7 分钟一次检查点</translation>
    </message>
    <message>
        <source>days to train (whole run)</source>
        <translation>训练天数（整个训练）</translation>
    </message>
    <message>
        <source>total USD (whole run)</source>
        <translation>总美元（整个训练）</translation>
    </message>
    <message>
        <source>deadline %1 days</source>
        <translation>截止期限 %1 天</translation>
    </message>
    <message>
        <source>budget %1 USD</source>
        <translation>预算 %1 美元</translation>
    </message>
    <message>
        <source>Add scenarios and compare them for the job in the job panel.</source>
        <translation>添加场景，并针对作业面板中的作业进行比较。</translation>
    </message>
    <message>
        <source>Set the tokens to train in the job panel to compare days and total USD.</source>
        <translation>在作业面板中设置要训练的 token 数，即可比较天数与总美元。</translation>
    </message>
    <message>
        <source>No scenario has a plan whose run finishes.</source>
        <translation>没有场景的方案能完成训练。</translation>
    </message>
    <message>
        <source>%1: got the suffix &quot;%2&quot;, expected .png or .pdf</source>
        <translation>%1：后缀为“%2”，应为 .png 或 .pdf</translation>
    </message>
    <message>
        <source>%1: cannot write in %2 (%3)</source>
        <translation>%1：无法在 %2 中写入（%3）</translation>
    </message>
    <message>
        <source>%1: the plot could not be drawn into the file</source>
        <translation>%1：无法将图绘制到文件中</translation>
    </message>
    <message>
        <source>%1: cannot replace the file</source>
        <translation>%1：无法替换该文件</translation>
    </message>
</context>
<context>
    <name>sailor::studio::ComparisonWindow</name>
    <message>
        <source>Compare scenarios</source>
        <translation>比较场景</translation>
    </message>
    <message>
        <source>Add current scenario</source>
        <translation>添加当前场景</translation>
    </message>
    <message>
        <source>The scenario as edited now, with the pools switched on now</source>
        <translation>当前编辑的场景，使用当前启用的资源池</translation>
    </message>
    <message>
        <source>Add scenario file…</source>
        <translation>添加场景文件…</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>Plan every scenario for the job in the job panel</source>
        <translation>针对作业面板中的作业规划每个场景</translation>
    </message>
    <message>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <source>Export plot…</source>
        <translation>导出图…</translation>
    </message>
    <message>
        <source>Scenarios</source>
        <translation>场景</translation>
    </message>
    <message>
        <source>Add scenario files</source>
        <translation>添加场景文件</translation>
    </message>
    <message>
        <source>Scenarios (*.json);;All files (*)</source>
        <translation>场景 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Add two or more scenarios, then Compare.</source>
        <translation>添加两个或更多场景，然后点击“比较”。</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Fix the highlighted fields in the job panel first.</source>
        <translation>请先修正作业面板中高亮的字段。</translation>
    </message>
    <message>
        <source>%1, %2 of %3 pools</source>
        <translation>%1，使用 %3 个资源池中的 %2 个</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message numerus="yes">
        <source>Compared %n scenario(s) for %1.</source>
        <translation>
            <numerusform>已针对 %1 比较 %n 个场景。</numerusform>
        </translation>
    </message>
    <message>
        <source>Planning %1 (%2 of %3)…</source>
        <translation>正在规划 %1（第 %2 个，共 %3 个）…</translation>
    </message>
    <message>
        <source>Export comparison as CSV</source>
        <translation>将比较导出为 CSV</translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation>已写入 %1</translation>
    </message>
    <message>
        <source>Export comparison plot</source>
        <translation>导出比较图</translation>
    </message>
    <message>
        <source>PNG image (*.png);;PDF document (*.pdf)</source>
        <translation>PNG 图像 (*.png);;PDF 文档 (*.pdf)</translation>
    </message>
</context>
<context>
    <name>sailor::studio::JobPanel</name>
    <message>
        <source>Expected a whole number ≥ %1, got &quot;%2&quot;</source>
        <translation>应为 ≥ %1 的整数，实际为“%2”</translation>
    </message>
    <message>
        <source>Expected a positive number, or empty for no limit; got &quot;%1&quot;</source>
        <translation>应为正数，留空表示不限制；实际为“%1”</translation>
    </message>
    <message>
        <source>Job</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>Custom architecture…</source>
        <translation>自定义架构…</translation>
    </message>
    <message>
        <source>A model from the catalogue (sailor catalog models) or your own architecture</source>
        <translation>目录中的模型（sailor catalog models）或自定义架构</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Custom architecture</source>
        <translation>自定义架构</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>A name for this architecture</source>
        <translation>此架构的名称</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <source>Transformer blocks</source>
        <translation>Transformer 块数</translation>
    </message>
    <message>
        <source>Hidden size</source>
        <translation>隐藏层维度</translation>
    </message>
    <message>
        <source>Attention heads</source>
        <translation>注意力头数</translation>
    </message>
    <message>
        <source>Must divide the hidden size</source>
        <translation>必须能整除隐藏层维度</translation>
    </message>
    <message>
        <source>FFN size</source>
        <translation>FFN 维度</translation>
    </message>
    <message>
        <source>Vocabulary</source>
        <translation>词表大小</translation>
    </message>
    <message>
        <source>Global batch</source>
        <translation>全局批大小</translation>
    </message>
    <message>
        <source>Sequences per iteration</source>
        <translation>每次迭代的序列数</translation>
    </message>
    <message>
        <source>Sequence length</source>
        <translation>序列长度</translation>
    </message>
    <message>
        <source>model default</source>
        <translation>模型默认值</translation>
    </message>
    <message>
        <source>Tokens per sequence; empty: the model&apos;s default</source>
        <translation>每个序列的 token 数；留空：使用模型默认值</translation>
    </message>
    <message>
        <source>fp32</source>
        <translation>fp32</translation>
    </message>
    <message>
        <source>bf16 mixed</source>
        <translation>bf16 混合精度</translation>
    </message>
    <message>
        <source>fp16 mixed</source>
        <translation>fp16 混合精度</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>Adam</source>
        <translation>Adam</translation>
    </message>
    <message>
        <source>SGD</source>
        <translation>SGD</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>Objective and constraints</source>
        <translation>优化目标与约束</translation>
    </message>
    <message>
        <source>Maximum throughput</source>
        <translation>最大吞吐量</translation>
    </message>
    <message>
        <source>Minimum cost per iteration</source>
        <translation>最低单次迭代成本</translation>
    </message>
    <message>
        <source>Objective</source>
        <translation>优化目标</translation>
    </message>
    <message>
        <source>Pareto frontier of throughput against cost</source>
        <translation>吞吐量与成本的帕累托前沿</translation>
    </message>
    <message>
        <source>Also search the whole trade-off between throughput and cost per iteration (slower on large scenarios)</source>
        <translation>同时搜索吞吐量与单次迭代成本之间的完整权衡（大型场景下较慢）</translation>
    </message>
    <message>
        <source>Max $ / iteration</source>
        <translation>最高 $ / 迭代</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>不限</translation>
    </message>
    <message>
        <source>Compute and egress cost of one iteration, USD</source>
        <translation>单次迭代的计算和出口流量费用，单位 USD</translation>
    </message>
    <message>
        <source>Max $ / hour</source>
        <translation>最高 $ / 小时</translation>
    </message>
    <message>
        <source>GPU rental and egress per hour of training, USD</source>
        <translation>每小时训练的 GPU 租用和出口流量费用，单位 USD</translation>
    </message>
    <message>
        <source>Min iterations / s</source>
        <translation>最低迭代数 / s</translation>
    </message>
    <message>
        <source>Lowest acceptable throughput</source>
        <translation>可接受的最低吞吐量</translation>
    </message>
    <message>
        <source>Max GPUs</source>
        <translation>最多 GPU 数</translation>
    </message>
    <message>
        <source>GPUs the plan may use at most</source>
        <translation>方案最多可使用的 GPU 数</translation>
    </message>
    <message>
        <source>Plans listed</source>
        <translation>列出方案数</translation>
    </message>
    <message>
        <source>How many of the best plans the search returns</source>
        <translation>搜索返回的最优方案数量</translation>
    </message>
    <message>
        <source>Expected a name</source>
        <translation>需要填写名称</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is a catalogue model; choose another name</source>
        <translation>“%1”是目录中的模型，请换一个名称</translation>
    </message>
    <message>
        <source>Got %1, expected %2</source>
        <translation>实际为 %1，应为 %2</translation>
    </message>
    <message>
        <source>%1 layers, hidden %2, %3 heads, %4 B parameters</source>
        <translation>%1 层，隐藏层维度 %2，%3 个注意力头，%4 B 参数</translation>
    </message>
    <message>
        <source>Expected at most 100 plans, got %1</source>
        <translation>最多 100 个方案，实际为 %1</translation>
    </message>
    <message>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Full</source>
        <translation>完整</translation>
    </message>
    <message>
        <source>Recomputation</source>
        <translation>重计算</translation>
    </message>
    <message>
        <source>Time limit (s)</source>
        <translation>时间限制（秒）</translation>
    </message>
    <message>
        <source>Seconds a search may take; when they are up, the best plans found so far are shown, marked as such</source>
        <translation>一次搜索最多可用的秒数；时间到时显示目前找到的最优方案，并注明这一点</translation>
    </message>
    <message>
        <source>Expected a percentage from 0 to %1, got &quot;%2&quot;</source>
        <translation>应为 0 到 %1 之间的百分比，实际为“%2”</translation>
    </message>
    <message>
        <source>Selective</source>
        <translation>选择性</translation>
    </message>
    <message>
        <source>Activation recomputation: Full keeps only each block&apos;s input and recomputes its forward during backward (less memory, about a third more compute); Selective recomputes only the attention core (softmax and dropout over the score matrices)</source>
        <translation>激活重计算：完整只保留每个块的输入，并在反向传播时重新计算其前向（内存更少，计算约多三分之一）；选择性只重计算注意力核心（分数矩阵上的 softmax 和 dropout）</translation>
    </message>
    <message>
        <source>Memory reserve (%)</source>
        <translation>内存预留 (%)</translation>
    </message>
    <message>
        <source>Share of each GPU&apos;s memory kept free against the allocator&apos;s fragmentation; plans with less headroom are dropped or flagged (0: none)</source>
        <translation>每个 GPU 为应对分配器碎片而保留的空闲内存比例；余量更少的方案将被舍弃或标记（0：不预留）</translation>
    </message>
    <message>
        <source>Drop plans within it</source>
        <translation>舍弃落入预留的方案</translation>
    </message>
    <message>
        <source>Flag plans within it</source>
        <translation>标记落入预留的方案</translation>
    </message>
    <message>
        <source>Drop: the search keeps the reserve free and leaves out plans within it; Flag: it searches the whole memory and marks plans within the reserve</source>
        <translation>舍弃：搜索时保留预留空间，并排除落入其中的方案；标记：在全部内存上搜索，并标记落入预留的方案</translation>
    </message>
    <message>
        <source>Training budget</source>
        <translation>训练预算</translation>
    </message>
    <message>
        <source>Tokens to train</source>
        <translation>训练 token 数</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>The whole run&apos;s tokens (e.g. 2e12): every plan then shows its days and total USD with failures and checkpoints priced in, and the plot can show days against total USD</source>
        <translation>整个训练的 token 数（例如 2e12）：每个方案随后显示其天数和总美元（已计入故障与检查点），图中可显示天数对总美元</translation>
    </message>
    <message>
        <source>Deadline (days)</source>
        <translation>截止期限（天）</translation>
    </message>
    <message>
        <source>Plans whose whole run takes longer are left out</source>
        <translation>整个训练耗时更长的方案将被排除</translation>
    </message>
    <message>
        <source>Budget (USD)</source>
        <translation>预算（美元）</translation>
    </message>
    <message>
        <source>Plans whose whole run costs more are left out</source>
        <translation>整个训练花费更多的方案将被排除</translation>
    </message>
    <message>
        <source>Needs the tokens to train: a deadline or budget applies to a whole run</source>
        <translation>需要先填写训练 token 数：截止期限或预算针对整个训练</translation>
    </message>
</context>
<context>
    <name>sailor::studio::LaunchPanel</name>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>Run the selected plan with the bundled runtime</source>
        <translation>使用内置运行时运行所选方案</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Interrupt the run: the workers are stopped and the run is recorded as stopped</source>
        <translation>中断运行：停止所有工作进程，并将运行记录为已停止</translation>
    </message>
    <message>
        <source>Training iterations to run</source>
        <translation>要运行的训练迭代次数</translation>
    </message>
    <message>
        <source>Synthetic tokens</source>
        <translation>合成 token</translation>
    </message>
    <message>
        <source>Shipped text</source>
        <translation>内置文本</translation>
    </message>
    <message>
        <source>Training data: a learnable synthetic byte stream, or the shipped public-domain text</source>
        <translation>训练数据：可学习的合成字节流，或随附的公有领域文本</translation>
    </message>
    <message>
        <source>E&amp;lastic (re-plan when workers are lost or GPUs change)</source>
        <translation>弹性(&amp;L)（丢失工作进程或 GPU 变化时重新规划）</translation>
    </message>
    <message>
        <source>&amp;Iterations:</source>
        <translation>迭代次数(&amp;I)：</translation>
    </message>
    <message>
        <source>&amp;Data:</source>
        <translation>数据(&amp;D)：</translation>
    </message>
    <message>
        <source>This machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>Slurm cluster</source>
        <translation>Slurm 集群</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Where Start runs the plan: on this machine (a rehearsal on CPU processes, at most a few), or as one job on a Slurm cluster described by a cluster description file; Export writes the plan&apos;s launch files for Kubernetes, torchrun or Slurm instead</source>
        <translation>“开始”在何处运行方案：在本机（在少量 CPU 进程上预演），或作为一个作业提交到由集群描述文件描述的 Slurm 集群；“导出”则改为写出方案在 Kubernetes、torchrun 或 Slurm 上的启动文件</translation>
    </message>
    <message>
        <source>cluster description (JSON)</source>
        <translation>集群描述 (JSON)</translation>
    </message>
    <message>
        <source>C&amp;luster...</source>
        <translation>集群(&amp;L)...</translation>
    </message>
    <message>
        <source>Choose the cluster description file (docs/formats.md)</source>
        <translation>选择集群描述文件（docs/formats.md）</translation>
    </message>
    <message>
        <source>Edit...</source>
        <translation>编辑...</translation>
    </message>
    <message>
        <source>Edit the cluster description: its pools&apos; partitions, GRES types, node selectors and defaults (a new one from the scenario&apos;s pools when none is chosen)</source>
        <translation>编辑集群描述：其资源池的分区、GRES 类型、节点选择器和默认值（未选择文件时，根据场景的资源池新建一个）</translation>
    </message>
    <message>
        <source>partition (optional)</source>
        <translation>分区（可选）</translation>
    </message>
    <message>
        <source>Submit every pool&apos;s tasks to this partition instead of the cluster description&apos;s</source>
        <translation>将每个资源池的任务提交到此分区，而不是集群描述中的分区</translation>
    </message>
    <message>
        <source>Kubernetes manifests</source>
        <translation>Kubernetes 清单</translation>
    </message>
    <message>
        <source>torchrun commands</source>
        <translation>torchrun 命令</translation>
    </message>
    <message>
        <source>Slurm job script</source>
        <translation>Slurm 作业脚本</translation>
    </message>
    <message>
        <source>Kubernetes: sailor.yaml (an indexed Job per pool); torchrun: hosts.txt and sailor-torchrun.sh; Slurm: sailor.sbatch (one heterogeneous job)</source>
        <translation>Kubernetes：sailor.yaml（每个资源池一个带索引的 Job）；torchrun：hosts.txt 和 sailor-torchrun.sh；Slurm：sailor.sbatch（一个异构作业）</translation>
    </message>
    <message>
        <source>directory to write the files into</source>
        <translation>写入文件的目录</translation>
    </message>
    <message>
        <source>Dire&amp;ctory...</source>
        <translation>目录(&amp;C)...</translation>
    </message>
    <message>
        <source>Choose the directory the launch files are written into</source>
        <translation>选择写入启动文件的目录</translation>
    </message>
    <message>
        <source>&amp;Target:</source>
        <translation>目标(&amp;T)：</translation>
    </message>
    <message>
        <source>Write the selected plan&apos;s launch files into the directory</source>
        <translation>将所选方案的启动文件写入该目录</translation>
    </message>
    <message>
        <source>default cluster description</source>
        <translation>默认集群描述</translation>
    </message>
    <message>
        <source>Export the launch files to</source>
        <translation>将启动文件导出到</translation>
    </message>
    <message>
        <source>Cluster description</source>
        <translation>集群描述</translation>
    </message>
    <message>
        <source>Cluster descriptions (*.json)</source>
        <translation>集群描述 (*.json)</translation>
    </message>
    <message>
        <source>Run with sailor run --elastic (on this machine or a Slurm cluster): a lost worker, a preemption notice, or a resize, makes the run re-plan on the GPUs left and go on in place</source>
        <translation>以 sailor run --elastic 运行（本机或 Slurm 集群）：丢失工作进程、收到抢占通知或调整规模时，运行会基于剩余的 GPU 重新规划并就地继续</translation>
    </message>
</context>
<context>
    <name>sailor::studio::LivePlots</name>
    <message>
        <source>starting</source>
        <translation>启动中</translation>
    </message>
    <message>
        <source>ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>iteration</source>
        <translation>迭代</translation>
    </message>
    <message>
        <source>loss (nats)</source>
        <translation>损失 (nats)</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>Training loss, mean over the global batch (cross-entropy, nats per token; ln 256 = 5.55 is a uniform guess over bytes)</source>
        <translation>训练损失，全局批次上的均值（交叉熵，单位 nats/token；ln 256 = 5.55 相当于在字节上均匀猜测）</translation>
    </message>
    <message>
        <source>Iteration time</source>
        <translation>迭代时间</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>tokens/s</translation>
    </message>
    <message>
        <source>Tokens trained per second: global batch x sequence length / iteration time</source>
        <translation>每秒训练的 token 数：全局批大小 x 序列长度 / 迭代时间</translation>
    </message>
    <message>
        <source>Time per stage</source>
        <translation>各阶段耗时</translation>
    </message>
    <message>
        <source>Per stage, its slowest rank: compute (solid) and time spent waiting on transfers and collectives (dashed)</source>
        <translation>每个阶段中最慢的 rank：计算时间（实线）及等待传输和集合通信的时间（虚线）</translation>
    </message>
    <message>
        <source>Peak memory per rank</source>
        <translation>各 rank 峰值内存</translation>
    </message>
    <message>
        <source>rank</source>
        <translation>rank</translation>
    </message>
    <message>
        <source>MiB</source>
        <translation>MiB</translation>
    </message>
    <message>
        <source>peak memory</source>
        <translation>峰值内存</translation>
    </message>
    <message>
        <source>Highest peak resident memory of each worker process so far (on CPU: the process&apos;s peak resident set)</source>
        <translation>各工作进程迄今的最高常驻内存峰值（CPU 上：进程的峰值常驻集）</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>Rank</translation>
    </message>
    <message>
        <source>Stage</source>
        <translation>阶段</translation>
    </message>
    <message>
        <source>Replica</source>
        <translation>副本</translation>
    </message>
    <message>
        <source>TP rank</source>
        <translation>TP rank</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Zone</source>
        <translation>可用区</translation>
    </message>
    <message>
        <source>PID</source>
        <translation>PID</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Last iteration</source>
        <translation>最近迭代</translation>
    </message>
    <message>
        <source>Last report</source>
        <translation>最近上报</translation>
    </message>
    <message>
        <source>Local time of the last event about this worker</source>
        <translation>该工作进程最近一次事件的本地时间</translation>
    </message>
    <message>
        <source>The last iteration this worker reported, and its time for it</source>
        <translation>该工作进程最近上报的迭代及其耗时</translation>
    </message>
    <message>
        <source>stage %1 compute</source>
        <translation>阶段 %1 计算</translation>
    </message>
    <message>
        <source>stage %1 communication</source>
        <translation>阶段 %1 通信</translation>
    </message>
    <message>
        <source>%1 (%2 s)</source>
        <translation>%1（%2 s）</translation>
    </message>
</context>
<context>
    <name>sailor::studio::MainWindow</name>
    <message>
        <source>Job and objective</source>
        <translation>作业与优化目标</translation>
    </message>
    <message>
        <source>Selection</source>
        <translation>选中项</translation>
    </message>
    <message>
        <source>Select a plan first (Plans tab)</source>
        <translation>请先选择一个方案（“方案”标签页）</translation>
    </message>
    <message>
        <source>Resources</source>
        <translation>资源</translation>
    </message>
    <message>
        <source>Plans</source>
        <translation>方案</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Planning…</source>
        <translation>正在规划…</translation>
    </message>
    <message>
        <source>Planning… %1</source>
        <translation>正在规划… %1</translation>
    </message>
    <message>
        <source>Planning cancelled; the plans shown are from the previous search</source>
        <translation>规划已取消；显示的是上一次搜索的方案</translation>
    </message>
    <message>
        <source>The default job could not be read: %1</source>
        <translation>无法读取默认作业：%1</translation>
    </message>
    <message>
        <source>The run store cannot be used: %1</source>
        <translation>无法使用运行记录库：%1</translation>
    </message>
    <message>
        <source>&amp;New from default scenario</source>
        <translation>从默认场景新建(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Open scenario…</source>
        <translation>打开场景(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Save scenario</source>
        <translation>保存场景(&amp;S)</translation>
    </message>
    <message>
        <source>Save scenario &amp;as…</source>
        <translation>场景另存为(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Export selected plan…</source>
        <translation>导出所选方案(&amp;E)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Plan now</source>
        <translation>立即规划(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Cancel planning</source>
        <translation>取消规划(&amp;C)</translation>
    </message>
    <message>
        <source>Re-plan on every &amp;edit</source>
        <translation>每次编辑后重新规划(&amp;E)</translation>
    </message>
    <message>
        <source>Open scenario</source>
        <translation>打开场景</translation>
    </message>
    <message>
        <source>Scenario JSON (*.json)</source>
        <translation>场景 JSON (*.json)</translation>
    </message>
    <message>
        <source>Save scenario</source>
        <translation>保存场景</translation>
    </message>
    <message>
        <source>Save scenario as</source>
        <translation>场景另存为</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>System default</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Plan</source>
        <translation>规划(&amp;P)</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <source>default scenario</source>
        <translation>默认场景</translation>
    </message>
    <message>
        <source>%1%2 — Sailor Studio</source>
        <translation>%1%2 — Sailor Studio</translation>
    </message>
    <message>
        <source>Fix the highlighted fields in the job panel to plan</source>
        <translation>请先修正作业面板中高亮的字段，再进行规划</translation>
    </message>
    <message>
        <source>No plan: %1</source>
        <translation>无可行方案：%1</translation>
    </message>
    <message>
        <source>No plan to run</source>
        <translation>没有可运行的方案</translation>
    </message>
    <message numerus="yes">
        <source>%n plan(s) · best %1 it/s, %2/iteration, %3 GPUs · %4 candidates in %5 s</source>
        <translation>
            <numerusform>%n 个方案 · 最优 %1 it/s，%2/迭代，%3 个 GPU · %5 s 内评估 %4 个候选</numerusform>
        </translation>
    </message>
    <message>
        <source>Planning failed: %1</source>
        <translation>规划失败：%1</translation>
    </message>
    <message>
        <source>Runs need a catalogue model; %1 is a custom architecture</source>
        <translation>运行需要使用目录中的模型；%1 是自定义架构</translation>
    </message>
    <message>
        <source>This plan uses %1 GPUs; a local run starts one process per GPU, at most %2. Set &quot;Max GPUs&quot; to %2 to plan a run of this size.</source>
        <translation>此方案使用 %1 个 GPU；本地运行为每个 GPU 启动一个进程，最多 %2 个。请将“最多 GPU 数”设为 %2，以规划此规模的运行。</translation>
    </message>
    <message>
        <source>This plan cannot run on this machine: it uses %1 GPUs (one process each, at most %2) with model %3.</source>
        <translation>此方案无法在本机运行：它使用 %1 个 GPU（每个一个进程，最多 %2 个），模型为 %3。</translation>
    </message>
    <message>
        <source>The run store cannot be read: %1</source>
        <translation>无法读取运行记录库：%1</translation>
    </message>
    <message>
        <source>Run %1 cannot be read: %2</source>
        <translation>无法读取运行 %1：%2</translation>
    </message>
    <message>
        <source>Could not open %1: %2. The scenario you were editing is unchanged.</source>
        <translation>无法打开 %1：%2。正在编辑的场景未受影响。</translation>
    </message>
    <message>
        <source>Could not save %1: %2</source>
        <translation>无法保存 %1：%2</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation>未保存的更改</translation>
    </message>
    <message>
        <source>The scenario has unsaved changes. Save them first?</source>
        <translation>场景有未保存的更改。是否先保存？</translation>
    </message>
    <message>
        <source>The language changes when Sailor Studio is started again</source>
        <translation>重新启动 Sailor Studio 后语言设置生效</translation>
    </message>
    <message>
        <source>Could not open %1: %2. The default scenario is shown instead.</source>
        <translation>无法打开 %1：%2。现显示默认场景。</translation>
    </message>
    <message>
        <source>The run store cannot be used: %1: is a directory, expected a run store file (SQLite)</source>
        <translation>无法使用运行记录库：%1：是一个目录，应为运行记录库文件（SQLite）</translation>
    </message>
    <message>
        <source>Some runs in %1 cannot be read: %2</source>
        <translation>%1 中的部分运行无法读取：%2</translation>
    </message>
    <message>
        <source>%1: is a directory, expected a scenario JSON file</source>
        <translation>%1：是一个目录，应为场景 JSON 文件</translation>
    </message>
    <message>
        <source>%1: no such file, expected a scenario JSON file</source>
        <translation>%1：文件不存在，应为场景 JSON 文件</translation>
    </message>
    <message>
        <source>%1: cannot be read: %2</source>
        <translation>%1：无法读取：%2</translation>
    </message>
    <message>
        <source>best found within %1 s (time limit)</source>
        <translation>%1 s 内找到的最优方案（时间限制）</translation>
    </message>
    <message>
        <source>The search stopped at its time limit; these are the best plans found so far. Searched: %1</source>
        <translation>搜索在时间限制处停止；这些是目前找到的最优方案。已搜索：%1</translation>
    </message>
    <message>
        <source>Choose the cluster description file first</source>
        <translation>请先选择集群描述文件</translation>
    </message>
    <message>
        <source>Choose the cluster description file of the cluster to run on.</source>
        <translation>请选择要运行的集群的描述文件。</translation>
    </message>
    <message>
        <source>Choose the directory to write the launch files into</source>
        <translation>请选择写入启动文件的目录</translation>
    </message>
    <message>
        <source>Its controller is gone (%1) and its job %2 may still run: re-attach to follow it, and to stop it</source>
        <translation>其控制进程已不在（%1），其作业 %2 可能仍在运行：重新接管以继续跟踪并可停止它</translation>
    </message>
    <message>
        <source>Wrote %1 to %2</source>
        <translation>已将 %1 写入 %2</translation>
    </message>
    <message>
        <source>Export failed: %1</source>
        <translation>导出失败：%1</translation>
    </message>
    <message>
        <source>%1 cannot be edited here: %2</source>
        <translation>无法在此编辑 %1：%2</translation>
    </message>
    <message>
        <source>Start the run with Elastic checked to resize it</source>
        <translation>请在勾选“弹性”后启动运行，才能调整其规模</translation>
    </message>
    <message>
        <source>A resize is still under way; try again when it has answered.</source>
        <translation>上一次调整规模仍在进行中；请在其答复后再试。</translation>
    </message>
    <message>
        <source>Could not open %1: %2. The default job is shown instead.</source>
        <translation>无法打开 %1：%2。改为显示默认作业。</translation>
    </message>
    <message>
        <source>Could not open %1: %2. The job you were editing is unchanged.</source>
        <translation>无法打开 %1：%2。正在编辑的作业未改变。</translation>
    </message>
    <message>
        <source>Open &amp;job…</source>
        <translation>打开作业(&amp;J)…</translation>
    </message>
    <message>
        <source>Save jo&amp;b…</source>
        <translation>保存作业(&amp;B)…</translation>
    </message>
    <message>
        <source>Open job</source>
        <translation>打开作业</translation>
    </message>
    <message>
        <source>Job JSON (*.json)</source>
        <translation>作业 JSON (*.json)</translation>
    </message>
    <message>
        <source>Save job</source>
        <translation>保存作业</translation>
    </message>
    <message>
        <source>Open price &amp;catalogue…</source>
        <translation>打开价格目录(&amp;C)…</translation>
    </message>
    <message>
        <source>A price sheet (sailor prices import) or a SkyPilot catalogue (its vms.csv) whose offers Add pool from catalogue lists</source>
        <translation>价格表（sailor prices import）或 SkyPilot 目录（其 vms.csv），“从目录添加资源池”会列出其中的报价</translation>
    </message>
    <message>
        <source>Add pool from &amp;catalogue…</source>
        <translation>从目录添加资源池(&amp;C)…</translation>
    </message>
    <message>
        <source>Add a pool from a cloud catalogue&apos;s offers: GPU type, cloud, region, zone, on-demand and spot price</source>
        <translation>从云目录的报价添加资源池：GPU 类型、云、区域、可用区、按需价格和竞价价格</translation>
    </message>
    <message>
        <source>C&amp;ompare scenarios…</source>
        <translation>比较场景(&amp;O)…</translation>
    </message>
    <message>
        <source>Plan several scenarios for this job and compare them side by side</source>
        <translation>针对此作业规划多个场景并并排比较</translation>
    </message>
    <message>
        <source>Open price catalogue</source>
        <translation>打开价格目录</translation>
    </message>
    <message>
        <source>Price sheets and SkyPilot catalogues (*.json vms.csv);;All files (*)</source>
        <translation>价格表和 SkyPilot 目录 (*.json vms.csv);;所有文件 (*)</translation>
    </message>
    <message>
        <source>%1 has no catalogue offers (a price sheet from `sailor prices import`, or a SkyPilot catalogue)</source>
        <translation>%1 中没有目录报价（应为 `sailor prices import` 生成的价格表或 SkyPilot 目录）</translation>
    </message>
    <message>
        <source>Cannot read the price catalogue %1: %2</source>
        <translation>无法读取价格目录 %1：%2</translation>
    </message>
</context>
<context>
    <name>sailor::studio::OfferPicker</name>
    <message>
        <source>Add pool from catalogue</source>
        <translation>从目录添加资源池</translation>
    </message>
    <message>
        <source>The price sheet has no catalogue offers.</source>
        <translation>该价格表没有目录报价。</translation>
    </message>
    <message>
        <source>%1, dated %2</source>
        <translation>%1，日期 %2</translation>
    </message>
    <message>
        <source>Add pool</source>
        <translation>添加 GPU 池</translation>
    </message>
    <message>
        <source>GPUs:</source>
        <translation>GPU 数：</translation>
    </message>
    <message>
        <source>All GPU types</source>
        <translation>所有 GPU 类型</translation>
    </message>
    <message>
        <source>All clouds</source>
        <translation>所有云</translation>
    </message>
    <message>
        <source>Region, zone or instance</source>
        <translation>区域、可用区或实例</translation>
    </message>
    <message>
        <source>Cloud</source>
        <translation>云</translation>
    </message>
    <message>
        <source>Region</source>
        <translation>区域</translation>
    </message>
    <message>
        <source>Zone</source>
        <translation>可用区</translation>
    </message>
    <message>
        <source>Instance</source>
        <translation>实例</translation>
    </message>
    <message>
        <source>GPU type</source>
        <translation>GPU 类型</translation>
    </message>
    <message>
        <source>GPUs per instance</source>
        <translation>每实例 GPU 数</translation>
    </message>
    <message>
        <source>On-demand $/GPU-h</source>
        <translation>按需 $/GPU·小时</translation>
    </message>
    <message>
        <source>Spot $/GPU-h</source>
        <translation>竞价 $/GPU·小时</translation>
    </message>
    <message>
        <source>The GPUs of the new pool</source>
        <translation>新资源池的 GPU 数</translation>
    </message>
    <message>
        <source>Spot price</source>
        <translation>竞价价格</translation>
    </message>
    <message>
        <source>Price the pool at the offer&apos;s spot price (preemptible instances)</source>
        <translation>按报价的竞价价格计价（可抢占实例）</translation>
    </message>
    <message>
        <source>—</source>
        <comment>no zone, or no spot price</comment>
        <translation>—</translation>
    </message>
    <message>
        <source>No offer matches the filters.</source>
        <translation>没有符合筛选条件的报价。</translation>
    </message>
    <message>
        <source>Choose an offer.</source>
        <translation>请选择一个报价。</translation>
    </message>
    <message>
        <source>%1 %2 in %3 at %4 $/GPU-hour spot (%5, %6)</source>
        <translation>%3 中的 %1 个 %2，竞价 %4 $/GPU·小时（%5，%6）</translation>
    </message>
    <message>
        <source>%1 %2 in %3 at %4 $/GPU-hour (%5, %6)</source>
        <translation>%3 中的 %1 个 %2，%4 $/GPU·小时（%5，%6）</translation>
    </message>
</context>
<context>
    <name>sailor::studio::PastRunsView</name>
    <message>
        <source>ID</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Iterations</source>
        <translation>迭代次数</translation>
    </message>
    <message>
        <source>Final loss</source>
        <translation>最终损失</translation>
    </message>
    <message>
        <source>Runs recorded in the run store; double-click one to show it</source>
        <translation>运行记录库中记录的运行；双击可查看</translation>
    </message>
    <message>
        <source>&amp;Open</source>
        <translation>打开(&amp;O)</translation>
    </message>
    <message>
        <source>Show the selected run&apos;s metrics and events</source>
        <translation>显示所选运行的指标和事件</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>刷新(&amp;R)</translation>
    </message>
    <message>
        <source>Read the list of runs from the run store again</source>
        <translation>重新从运行记录库读取运行列表</translation>
    </message>
    <message>
        <source>Re-&amp;attach</source>
        <translation>重新接管(&amp;A)</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
</context>
<context>
    <name>sailor::studio::PlanInspector</name>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>%1 µs</source>
        <translation>%1 µs</translation>
    </message>
    <message>
        <source>%1 GiB</source>
        <translation>%1 GiB</translation>
    </message>
    <message>
        <source>%1× %2 tp%3 @ %4</source>
        <translation>%1× %2 tp%3 @ %4</translation>
    </message>
    <message>
        <source>Forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <source>Backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <source>Send/receive</source>
        <translation>发送/接收</translation>
    </message>
    <message>
        <source>All-reduce</source>
        <translation>All-Reduce</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>same zone</source>
        <translation>同可用区</translation>
    </message>
    <message>
        <source>same region</source>
        <translation>同区域</translation>
    </message>
    <message>
        <source>same continent</source>
        <translation>同大洲</translation>
    </message>
    <message>
        <source>across continents</source>
        <translation>跨大洲</translation>
    </message>
    <message>
        <source>E&amp;xport plan…</source>
        <translation>导出方案(&amp;X)…</translation>
    </message>
    <message>
        <source>Save the plan as JSON, the format `sailor simulate --plan` reads</source>
        <translation>将方案保存为 JSON，即 `sailor simulate --plan` 读取的格式</translation>
    </message>
    <message>
        <source>Stage</source>
        <translation>阶段</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Replicas</source>
        <translation>副本</translation>
    </message>
    <message>
        <source>DP degree</source>
        <translation>数据并行度</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 数</translation>
    </message>
    <message>
        <source>Microbatches</source>
        <translation>微批次</translation>
    </message>
    <message>
        <source>Forward (ms)</source>
        <translation>前向 (ms)</translation>
    </message>
    <message>
        <source>Backward (ms)</source>
        <translation>反向 (ms)</translation>
    </message>
    <message>
        <source>Straggler</source>
        <translation>最慢副本</translation>
    </message>
    <message>
        <source>Replicas of one kind: count × GPU type, tensor-parallel degree @ zone</source>
        <translation>同类副本：数量 × GPU 类型，张量并行度 @ 可用区</translation>
    </message>
    <message>
        <source>Microbatches each replica processes</source>
        <translation>每个副本处理的微批次数</translation>
    </message>
    <message>
        <source>Forward time of one microbatch on the stage&apos;s slowest replica</source>
        <translation>该阶段最慢副本上单个微批次的前向耗时</translation>
    </message>
    <message>
        <source>Backward time of one microbatch on the stage&apos;s slowest replica</source>
        <translation>该阶段最慢副本上单个微批次的反向耗时</translation>
    </message>
    <message>
        <source>The replica whose compute sets the stage&apos;s time</source>
        <translation>计算耗时决定该阶段耗时的副本</translation>
    </message>
    <message>
        <source>Stages</source>
        <translation>流水线阶段</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>显存</translation>
    </message>
    <message>
        <source>Part</source>
        <translation>组成部分</translation>
    </message>
    <message>
        <source>Seconds per iteration</source>
        <translation>每次迭代秒数</translation>
    </message>
    <message>
        <source>Share</source>
        <translation>占比</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>耗时</translation>
    </message>
    <message>
        <source>USD per iteration</source>
        <translation>USD / 迭代</translation>
    </message>
    <message>
        <source>USD per hour</source>
        <translation>USD / 小时</translation>
    </message>
    <message>
        <source>From zone</source>
        <translation>源可用区</translation>
    </message>
    <message>
        <source>To zone</source>
        <translation>目标可用区</translation>
    </message>
    <message>
        <source>Relation</source>
        <translation>关系</translation>
    </message>
    <message>
        <source>GB per iteration</source>
        <translation>GB / 迭代</translation>
    </message>
    <message>
        <source>USD per GB</source>
        <translation>USD / GB</translation>
    </message>
    <message>
        <source>Egress by zone pair</source>
        <translation>按可用区对统计的出口流量</translation>
    </message>
    <message>
        <source>Cost</source>
        <translation>成本</translation>
    </message>
    <message>
        <source>%1, stage %2, microbatch %3</source>
        <translation>%1，阶段 %2，微批次 %3</translation>
    </message>
    <message>
        <source>%1, stage %2</source>
        <translation>%1，阶段 %2</translation>
    </message>
    <message>
        <source>%1 – %2 ms (%3)</source>
        <translation>%1 – %2 ms（%3）</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <source>No plan selected: pick one on the trade-off plot.</source>
        <translation>未选择方案：请在权衡图上选择一个。</translation>
    </message>
    <message>
        <source>%1 GPUs in 1 stage</source>
        <translation>%1 个 GPU，1 个流水线阶段</translation>
    </message>
    <message>
        <source>%1 GPUs in %2 stages</source>
        <translation>%1 个 GPU，%2 个流水线阶段</translation>
    </message>
    <message>
        <source>&lt;b&gt;Iteration %1&lt;/b&gt; · %2 it/s · %3 tokens/s · &lt;b&gt;%4 per iteration&lt;/b&gt; · %5 per hour · %6 · peak memory %7 of %8</source>
        <translation>&lt;b&gt;迭代耗时 %1&lt;/b&gt; · %2 it/s · %3 tokens/s · &lt;b&gt;每次迭代 %4&lt;/b&gt; · 每小时 %5 · %6 · 峰值显存 %7 / %8</translation>
    </message>
    <message>
        <source>does not fit in memory</source>
        <translation>显存不足</translation>
    </message>
    <message>
        <source>%1 (1 layer)</source>
        <translation>%1（1 层）</translation>
    </message>
    <message>
        <source>%1–%2 (%3 layers)</source>
        <translation>%1–%2（%3 层）</translation>
    </message>
    <message>
        <source>%1: %2 GPUs of %3 (%4 memory each)</source>
        <translation>%1：%2 个 %3 GPU（每个显存 %4）</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>#%1</source>
        <translation>#%1</translation>
    </message>
    <message>
        <source>#%1: %2 tp%3 @ %4</source>
        <translation>#%1：%2 tp%3 @ %4</translation>
    </message>
    <message>
        <source>Model states</source>
        <translation>模型状态</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation>激活值</translation>
    </message>
    <message>
        <source>Transient</source>
        <translation>临时缓冲</translation>
    </message>
    <message>
        <source>Runtime overhead</source>
        <translation>运行时开销</translation>
    </message>
    <message>
        <source>%1, over capacity</source>
        <translation>%1（超出容量）</translation>
    </message>
    <message>
        <source>Over capacity</source>
        <translation>超出容量</translation>
    </message>
    <message>
        <source>Capacity</source>
        <translation>容量</translation>
    </message>
    <message>
        <source>Stage %1: %2</source>
        <translation>阶段 %1：%2</translation>
    </message>
    <message>
        <source>Memory per GPU (GiB)</source>
        <translation>每 GPU 显存 (GiB)</translation>
    </message>
    <message>
        <source>Does not fit in memory:</source>
        <translation>显存不足：</translation>
    </message>
    <message>
        <source>Compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>Pipeline bubble</source>
        <translation>流水线气泡</translation>
    </message>
    <message>
        <source>Point-to-point</source>
        <translation>点对点通信</translation>
    </message>
    <message>
        <source>Data-parallel sync</source>
        <translation>数据并行同步</translation>
    </message>
    <message>
        <source>Iteration</source>
        <translation>迭代</translation>
    </message>
    <message>
        <source>The planner&apos;s own model estimated %1 and %2 per iteration for this plan; the figures above are the simulator&apos;s.</source>
        <translation>规划器自身的模型估计此方案每次迭代耗时 %1、成本 %2；以上数据来自模拟器。</translation>
    </message>
    <message>
        <source>GPUs (compute)</source>
        <translation>GPU（计算）</translation>
    </message>
    <message>
        <source>Egress</source>
        <translation>出口流量</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>合计</translation>
    </message>
    <message>
        <source>Stage %1</source>
        <translation>阶段 %1</translation>
    </message>
    <message>
        <source>Time in the iteration (ms)</source>
        <translation>迭代内时间 (ms)</translation>
    </message>
    <message>
        <source>Map</source>
        <translation>地图</translation>
    </message>
    <message>
        <source>No plan to export.</source>
        <translation>没有可导出的方案。</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Export plan</source>
        <translation>导出方案</translation>
    </message>
    <message>
        <source>Plans (*.json);;All files (*)</source>
        <translation>方案 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Export &amp;timeline…</source>
        <translation>导出时间线(&amp;T)…</translation>
    </message>
    <message>
        <source>Save the simulated schedule as a Chrome trace, to open in ui.perfetto.dev or chrome://tracing</source>
        <translation>将模拟的调度保存为 Chrome trace 文件，可在 ui.perfetto.dev 或 chrome://tracing 中打开</translation>
    </message>
    <message>
        <source>No timeline to export.</source>
        <translation>没有可导出的时间线。</translation>
    </message>
    <message>
        <source>Export timeline</source>
        <translation>导出时间线</translation>
    </message>
    <message>
        <source>Chrome traces (*.json);;All files (*)</source>
        <translation>Chrome trace 文件 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Where the iteration goes on stage %1, the busiest (the other stages wait longer):</source>
        <translation>最繁忙的阶段 %1 上一次迭代的时间构成（其他阶段等待更久）：</translation>
    </message>
    <message>
        <source>Where the iteration goes:</source>
        <translation>一次迭代的时间构成：</translation>
    </message>
    <message>
        <source>Busy</source>
        <translation>繁忙</translation>
    </message>
    <message>
        <source>Share of the iteration the stage computes, transfers or synchronises; the rest it waits for other stages. The busiest stage is the bottleneck (the Time tab&apos;s)</source>
        <translation>该阶段在一次迭代中用于计算、传输或同步的时间占比，其余时间在等待其他阶段。最繁忙的阶段即瓶颈（“耗时”选项卡所示）</translation>
    </message>
    <message>
        <source>Gradient bucket</source>
        <translation>梯度桶</translation>
    </message>
    <message>
        <source>Use</source>
        <translation>用途</translation>
    </message>
    <message>
        <source>GPU types</source>
        <translation>GPU 类型</translation>
    </message>
    <message>
        <source>GB/s</source>
        <translation>GB/s</translation>
    </message>
    <message>
        <source>Latency</source>
        <translation>延迟</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Link</source>
        <translation>链路</translation>
    </message>
    <message>
        <source>Links (where each figure comes from)</source>
        <translation>链路（各数值的来源）</translation>
    </message>
    <message>
        <source> · schedule: %1</source>
        <translation> · 调度：%1</translation>
    </message>
    <message>
        <source> · MFU %1 % (model %2 TFLOP/s per GPU)</source>
        <translation> · MFU %1 %（模型每 GPU %2 TFLOP/s）</translation>
    </message>
    <message>
        <source>pipeline %1 → %2</source>
        <translation>流水线 %1 → %2</translation>
    </message>
    <message>
        <source>data-parallel, stage %1</source>
        <translation>数据并行，阶段 %1</translation>
    </message>
    <message>
        <source>tied embedding</source>
        <translation>共享嵌入</translation>
    </message>
    <message>
        <source> (same node)</source>
        <translation>（同一节点）</translation>
    </message>
    <message>
        <source>Reduction overlapped with the backward</source>
        <translation>与反向传播重叠的归约</translation>
    </message>
</context>
<context>
    <name>sailor::studio::PlanningService</name>
    <message>
        <source>unknown error in the planner</source>
        <translation>规划器出现未知错误</translation>
    </message>
</context>
<context>
    <name>sailor::studio::PredictionView</name>
    <message>
        <source>Measured: the slowest rank&apos;s time per iteration. Dashed: the run&apos;s prediction for the hardware it runs on (the simulator on the local device&apos;s profile, sailor profile) when it recorded one. Before a run starts it is the plan&apos;s predicted iteration time on the plan&apos;s GPUs; a run without a prediction of its own (a scaled-down model on CPU processes, or a device without a profile) gets no line, since the plan&apos;s figure is for other hardware. The Prediction tab has the figures side by side.</source>
        <translation>实测：最慢 rank 每次迭代的时间。虚线：运行记录了其所在硬件的预测时即为该预测（在本地设备的 profile 上运行模拟器，sailor profile）。运行开始前，虚线是方案在其 GPU 上的预测迭代时间；没有自身预测的运行（CPU 进程上的缩小模型，或没有 profile 的设备）不画线，因为方案的数值针对的是其他硬件。“预测”标签页并列给出各项数值。</translation>
    </message>
    <message>
        <source>Quantity</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>预测</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>误差</translation>
    </message>
    <message>
        <source>The run&apos;s prediction for the hardware it runs on (the local device&apos;s profile) against what it measured: medians of the iterations after warm-up (the first 2). Compute: the stage&apos;s slowest rank&apos;s forward, backward and optimizer (tensor-parallel all-reduces included); communication: the rest of its iteration (transfers, data-parallel sync, waiting).</source>
        <translation>运行针对其实际硬件（本机设备的性能剖析）的预测与实测对比：取预热（前 2 次）之后各次迭代的中位数。计算：该阶段最慢进程的前向、反向和优化器（含张量并行的全归约）；通信：其迭代的其余部分（传输、数据并行同步、等待）。</translation>
    </message>
    <message>
        <source>predicted %1 s %2</source>
        <translation>预测 %1 s %2</translation>
    </message>
    <message>
        <source>no prediction for this run&apos;s device; the plan&apos;s %1 s is for its %2, not comparable</source>
        <translation>此运行的设备没有预测；方案的 %1 s 针对其 %2，不可比较</translation>
    </message>
    <message>
        <source>predicted %1 s for the plan&apos;s GPUs</source>
        <translation>方案 GPU 上预测 %1 s</translation>
    </message>
    <message>
        <source>No run shown.</source>
        <translation>未显示任何运行。</translation>
    </message>
    <message>
        <source>This run recorded no prediction for its hardware (recorded before runs had one).</source>
        <translation>此运行未记录针对其硬件的预测（记录于运行开始带有预测之前）。</translation>
    </message>
    <message>
        <source>%1: no iteration measured yet.</source>
        <translation>%1：尚未测得任何迭代。</translation>
    </message>
    <message>
        <source>%1; measured: median of iterations %2-%3 (the first %4 are warm-up)</source>
        <translation>%1；实测：迭代 %2-%3 的中位数（前 %4 次为预热）</translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation>%1 MiB</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
</context>
<context>
    <name>sailor::studio::PropertyPanel</name>
    <message>
        <source>Region: %1</source>
        <translation>区域：%1</translation>
    </message>
    <message>
        <source>Zone: %1</source>
        <translation>可用区：%1</translation>
    </message>
    <message>
        <source>Pool: %1 in %2</source>
        <translation>GPU 池：%2 中的 %1</translation>
    </message>
    <message>
        <source>Link: %1 ↔ %2</source>
        <translation>链路：%1 ↔ %2</translation>
    </message>
    <message>
        <source>Scenario: %1</source>
        <translation>场景：%1</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Applied when the field loses focus</source>
        <translation>字段失去焦点时生效</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>描述</translation>
    </message>
    <message>
        <source>&lt;b&gt;Defaults by relation&lt;/b&gt;&lt;br&gt;For zone pairs without a declared link: bandwidth (GB/s), latency (s) and egress ($/GB).</source>
        <translation>&lt;b&gt;按关系的默认值&lt;/b&gt;&lt;br&gt;适用于未声明链路的可用区对：带宽 (GB/s)、延迟 (s) 和出口流量费用 ($/GB)。</translation>
    </message>
    <message>
        <source>GB/s</source>
        <translation>GB/s</translation>
    </message>
    <message>
        <source>latency (s)</source>
        <translation>延迟 (s)</translation>
    </message>
    <message>
        <source>$/GB</source>
        <translation>$/GB</translation>
    </message>
    <message>
        <source>Bandwidth between nodes, %1 (GB/s)</source>
        <translation>节点间带宽，%1 (GB/s)</translation>
    </message>
    <message>
        <source>Enter a number in GB/s (got &quot;%1&quot;)</source>
        <translation>请输入以 GB/s 为单位的数值（实际为“%1”）</translation>
    </message>
    <message>
        <source>Latency, %1 (seconds)</source>
        <translation>延迟，%1（秒）</translation>
    </message>
    <message>
        <source>Enter a number in seconds (got &quot;%1&quot;)</source>
        <translation>请输入以秒为单位的数值（实际为“%1”）</translation>
    </message>
    <message>
        <source>Egress price, %1 ($/GB)</source>
        <translation>出口流量单价，%1 ($/GB)</translation>
    </message>
    <message>
        <source>Enter a number in $/GB (got &quot;%1&quot;)</source>
        <translation>请输入以 $/GB 为单位的数值（实际为“%1”）</translation>
    </message>
    <message>
        <source>%1 ↔ %2: $%3/GB</source>
        <translation>%1 ↔ %2：$%3/GB</translation>
    </message>
    <message>
        <source>Other egress prices</source>
        <translation>其他出口流量单价</translation>
    </message>
    <message>
        <source>Continent</source>
        <translation>大洲</translation>
    </message>
    <message>
        <source>Zones on the same continent use the same-continent defaults; others the across-continents ones</source>
        <translation>同一大洲的可用区使用“同大洲”默认值；其他使用“跨大洲”默认值</translation>
    </message>
    <message>
        <source>Zones</source>
        <translation>可用区</translation>
    </message>
    <message>
        <source>Deleting a region deletes its zones with their pools and links.</source>
        <translation>删除区域会同时删除其可用区及其中的 GPU 池和链路。</translation>
    </message>
    <message>
        <source>Renaming updates the zone&apos;s pools, links and egress prices</source>
        <translation>重命名会同步更新该可用区的 GPU 池、链路和出口流量单价</translation>
    </message>
    <message>
        <source>Region</source>
        <translation>区域</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>%1× %2%3</source>
        <translation>%1× %2%3</translation>
    </message>
    <message>
        <source> (spot)</source>
        <translation>（竞价）</translation>
    </message>
    <message>
        <source>Pools</source>
        <translation>GPU 池</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n GPU(s))</source>
        <translation>
            <numerusform>%1（%n 个 GPU）</numerusform>
        </translation>
    </message>
    <message>
        <source>Links to</source>
        <translation>链路至</translation>
    </message>
    <message>
        <source>Deleting a zone deletes its pools, links and egress prices.</source>
        <translation>删除可用区会同时删除其 GPU 池、链路和出口流量单价。</translation>
    </message>
    <message>
        <source>Zone</source>
        <translation>可用区</translation>
    </message>
    <message>
        <source>GPU type</source>
        <translation>GPU 类型</translation>
    </message>
    <message>
        <source>%1, %2 GB, %3 GPUs per node</source>
        <translation>%1，%2 GB，每节点 %3 个 GPU</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 数</translation>
    </message>
    <message>
        <source>Enter a whole number of GPUs (got &quot;%1&quot;)</source>
        <translation>请输入 GPU 数量（整数，实际为“%1”）</translation>
    </message>
    <message>
        <source>GPUs of this type available in the zone</source>
        <translation>该可用区中此类型可用的 GPU 数量</translation>
    </message>
    <message>
        <source>$/GPU-hour</source>
        <translation>$/GPU·小时</translation>
    </message>
    <message>
        <source>Enter a price in $/GPU-hour (got &quot;%1&quot;)</source>
        <translation>请输入以 $/GPU·小时为单位的价格（实际为“%1”）</translation>
    </message>
    <message>
        <source>Price per GPU per hour, US dollars</source>
        <translation>每个 GPU 每小时的价格，单位美元</translation>
    </message>
    <message>
        <source>Spot (preemptible)</source>
        <translation>竞价实例（可抢占）</translation>
    </message>
    <message>
        <source>Pricing</source>
        <translation>计费方式</translation>
    </message>
    <message>
        <source>GPUs per node</source>
        <translation>每节点 GPU 数</translation>
    </message>
    <message>
        <source>Enter a whole number of GPUs per node, or nothing for the catalogue&apos;s (got &quot;%1&quot;)</source>
        <translation>请输入每节点 GPU 数（整数），留空则使用目录中的值（实际为“%1”）</translation>
    </message>
    <message>
        <source>Empty: the GPU type&apos;s usual node size from the catalogue</source>
        <translation>留空：使用目录中该 GPU 类型的常用节点规格</translation>
    </message>
    <message>
        <source>catalogue: %1</source>
        <translation>目录值：%1</translation>
    </message>
    <message>
        <source>catalogue default</source>
        <translation>目录默认值</translation>
    </message>
    <message>
        <source>%1 ↔ %2 (%3)</source>
        <translation>%1 ↔ %2（%3）</translation>
    </message>
    <message>
        <source>Applies to</source>
        <translation>适用于</translation>
    </message>
    <message>
        <source>%1 → %2%3</source>
        <translation>%1 → %2%3</translation>
    </message>
    <message numerus="yes">
        <source>, %n GPU(s) per node sending</source>
        <translation>
            <numerusform>，每节点 %n 个 GPU 发送</numerusform>
        </translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>SAILOR fit (imported): %1·x² + %2·x + %3 GB/s with x = log2(MB), cap %4 GB/s. Changing bandwidth or latency replaces it with a latency + bandwidth model.</source>
        <translation>SAILOR 拟合（导入）：%1·x² + %2·x + %3 GB/s，其中 x = log2(MB)，上限 %4 GB/s。修改带宽或延迟会将其替换为“延迟 + 带宽”模型。</translation>
    </message>
    <message>
        <source>Bandwidth (GB/s)</source>
        <translation>带宽 (GB/s)</translation>
    </message>
    <message>
        <source>Aggregate bandwidth between two nodes of these zones, one direction</source>
        <translation>这两个可用区的两个节点之间的单向聚合带宽</translation>
    </message>
    <message>
        <source>Latency (s)</source>
        <translation>延迟 (s)</translation>
    </message>
    <message>
        <source>One-way latency in seconds (e.g. 0.03 for 30 ms)</source>
        <translation>单向延迟，单位秒（例如 30 ms 填 0.03）</translation>
    </message>
    <message>
        <source>Egress ($/GB)</source>
        <translation>出口流量费用 ($/GB)</translation>
    </message>
    <message>
        <source>Enter a price in $/GB (got &quot;%1&quot;)</source>
        <translation>请输入以 $/GB 为单位的价格（实际为“%1”）</translation>
    </message>
    <message>
        <source>Egress price between these zones, both directions; empty: the default for their relation</source>
        <translation>这两个可用区之间的出口流量单价（双向）；留空：使用其关系对应的默认值</translation>
    </message>
    <message>
        <source>default: %1 (%2)</source>
        <translation>默认：%1（%2）</translation>
    </message>
    <message>
        <source>The GPU type&apos;s default: %1</source>
        <translation>该 GPU 类型的默认值：%1</translation>
    </message>
    <message>
        <source>%1, %2 GPUs per node, %3 Gb/s per node</source>
        <translation>%1，每节点 %2 个 GPU，每节点 %3 Gb/s</translation>
    </message>
    <message>
        <source>Instance</source>
        <translation>实例</translation>
    </message>
    <message>
        <source>%1 GB/s per node, %2 us latency</source>
        <translation>每节点 %1 GB/s，延迟 %2 us</translation>
    </message>
    <message>
        <source>%1 GB/s per node at 64 MB (SAILOR fit)</source>
        <translation>64 MB 时每节点 %1 GB/s（SAILOR 拟合）</translation>
    </message>
    <message>
        <source>source: %1 (%2)</source>
        <translation>来源：%1（%2）</translation>
    </message>
    <message>
        <source>Between nodes</source>
        <translation>节点之间</translation>
    </message>
    <message>
        <source>Preemptible GPUs at the spot price</source>
        <translation>按竞价价格计价的可抢占 GPU</translation>
    </message>
    <message>
        <source>Owned (our own GPUs)</source>
        <translation>自有（我们自己的 GPU）</translation>
    </message>
    <message>
        <source>The team&apos;s own GPUs beside rented ones: never preempted, priced at their amortised $/GPU-hour (0 for none)</source>
        <translation>团队自有的 GPU，与租用的并用：不会被抢占，按摊销后的 $/GPU·小时计价（无摊销则为 0）</translation>
    </message>
    <message>
        <source>Planning</source>
        <translation>规划</translation>
    </message>
    <message>
        <source>Use in planning</source>
        <translation>用于规划</translation>
    </message>
    <message>
        <source>Unchecked: the pool stays in the scenario but plans leave it out (compare offers without copying files)</source>
        <translation>不勾选：资源池保留在场景中，但规划时不使用（无需复制文件即可比较报价）</translation>
    </message>
    <message>
        <source>Preemptions / GPU-hour</source>
        <translation>抢占次数 / GPU·小时</translation>
    </message>
    <message>
        <source>Enter preemptions per GPU-hour from 0 to 1, or nothing (got &quot;%1&quot;)</source>
        <translation>请输入 0 到 1 之间的每 GPU·小时抢占次数，或留空（实际为“%1”）</translation>
    </message>
    <message>
        <source>Spot pools: how often a GPU is taken away, which the whole run prices in; empty: not priced in</source>
        <translation>竞价资源池：GPU 被收回的频率，整个训练会计入其影响；留空：不计入</translation>
    </message>
    <message>
        <source>not priced in</source>
        <translation>不计入</translation>
    </message>
    <message>
        <source>Rate from trace…</source>
        <translation>从轨迹读取频率…</translation>
    </message>
    <message>
        <source>Read the rate from an availability trace (SAILOR&apos;s CSV or JSON): GPUs taken away over GPU-hours held</source>
        <translation>从可用性轨迹（SAILOR 的 CSV 或 JSON）读取频率：被收回的 GPU 数除以持有的 GPU·小时</translation>
    </message>
    <message>
        <source>Availability trace</source>
        <translation>可用性轨迹</translation>
    </message>
    <message>
        <source>Traces (*.csv *.json);;All files (*)</source>
        <translation>轨迹 (*.csv *.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Rate source</source>
        <translation>频率来源</translation>
    </message>
    <message>
        <source>Amortised</source>
        <translation>摊销</translation>
    </message>
    <message>
        <source>%1 USD a GPU over %2 years + %3 USD/GPU-hour running = %4 USD/GPU-hour</source>
        <translation>每个 GPU %1 美元，分 %2 年摊销 + 运行 %3 美元/GPU·小时 = %4 美元/GPU·小时</translation>
    </message>
    <message>
        <source>Select a spot pool first</source>
        <translation>请先选择一个竞价资源池</translation>
    </message>
    <message>
        <source>%1: got %2, expected %3</source>
        <translation>%1：实际为 %2，应为 %3</translation>
    </message>
    <message>
        <source>Make the pool spot first: a preemption rate is a spot pool&apos;s</source>
        <translation>请先将资源池设为竞价：抢占频率只适用于竞价资源池</translation>
    </message>
</context>
<context>
    <name>sailor::studio::ReconfigurationView</name>
    <message>
        <source>Iteration</source>
        <translation>迭代</translation>
    </message>
    <message>
        <source>Event</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>Cause</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 数</translation>
    </message>
    <message>
        <source>State from</source>
        <translation>状态来源</translation>
    </message>
    <message>
        <source>Iterations lost</source>
        <translation>损失的迭代</translation>
    </message>
    <message>
        <source>Phases / reason</source>
        <translation>各阶段耗时 / 原因</translation>
    </message>
    <message>
        <source>Plan before → after</source>
        <translation>之前 → 之后的方案</translation>
    </message>
    <message>
        <source>The run&apos;s changes of world: when GPUs came or went (an availability trace, a resize) or a worker was lost, the run re-planned and reconfigured its workers in place; a pause waits for resources. Hover a row for its detail and both plans.</source>
        <translation>运行的规模变化：当 GPU 增减（可用性轨迹、调整规模）或丢失工作进程时，运行重新规划并就地重新配置其工作进程；暂停表示等待资源。将鼠标悬停在一行上可查看详情和前后两个方案。</translation>
    </message>
    <message>
        <source>Resi&amp;ze...</source>
        <translation>调整规模(&amp;Z)...</translation>
    </message>
    <message>
        <source>trace</source>
        <translation>可用性轨迹</translation>
    </message>
    <message>
        <source>resize</source>
        <translation>调整规模</translation>
    </message>
    <message>
        <source>worker lost</source>
        <translation>工作进程丢失</translation>
    </message>
    <message>
        <source>%1→%2 GPUs (%3)</source>
        <translation>%1→%2 个 GPU（%3）</translation>
    </message>
    <message>
        <source>re-plan %1</source>
        <translation>重新规划 %1</translation>
    </message>
    <message>
        <source>teardown %1</source>
        <translation>拆除 %1</translation>
    </message>
    <message>
        <source>launch %1</source>
        <translation>启动 %1</translation>
    </message>
    <message>
        <source>groups %1</source>
        <translation>建组 %1</translation>
    </message>
    <message>
        <source>rebuild %1</source>
        <translation>重建 %1</translation>
    </message>
    <message>
        <source>transfer %1 (%2 MB)</source>
        <translation>传输 %1（%2 MB）</translation>
    </message>
    <message>
        <source>total %1 s</source>
        <translation>共 %1 秒</translation>
    </message>
    <message>
        <source>stage %1 (layers %2-%3): %4</source>
        <translation>阶段 %1（层 %2-%3）：%4</translation>
    </message>
    <message numerus="yes">
        <source>%n GPU(s), microbatch %1: %2</source>
        <translation>
            <numerusform>%n 个 GPU，微批次 %1：%2</numerusform>
        </translation>
    </message>
    <message>
        <source>reconfigured</source>
        <translation>已重新配置</translation>
    </message>
    <message>
        <source>checkpoint</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>peers</source>
        <translation>对等进程</translation>
    </message>
    <message numerus="yes">
        <source>%n GPU(s)</source>
        <translation>
            <numerusform>%n 个 GPU</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>in %n stage(s)</source>
        <translation>
            <numerusform>分 %n 个阶段</numerusform>
        </translation>
    </message>
    <message>
        <source>%1
Generation %2, from iteration %3.
Before: %4
After: %5
%6</source>
        <translation>%1
第 %2 代，自迭代 %3 起。
之前：%4
之后：%5
%6</translation>
    </message>
    <message>
        <source>Paused: waiting for resources: %1</source>
        <translation>已暂停：等待资源：%1</translation>
    </message>
    <message>
        <source>Cause: %1. The workers keep their state; the run goes on at iteration %2 when enough resources return (a reconfiguration follows).</source>
        <translation>原因：%1。工作进程保留其状态；资源足够时运行从迭代 %2 继续（随后进行一次重新配置）。</translation>
    </message>
    <message>
        <source>paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>Tell the run how many GPUs it has now: it re-plans and goes on</source>
        <translation>告诉运行它现在有多少个 GPU：它会重新规划并继续</translation>
    </message>
    <message>
        <source>Only an elastic run of this machine that is running can be resized</source>
        <translation>只有本机上正在运行的弹性运行才能调整规模</translation>
    </message>
</context>
<context>
    <name>sailor::studio::ResizeDialog</name>
    <message>
        <source>Resize run %1</source>
        <translation>调整运行 %1 的规模</translation>
    </message>
    <message>
        <source>The GPUs the run has now in each zone. The run re-plans on them and goes on without restarting the workers that stay.</source>
        <translation>运行在每个可用区现有的 GPU 数。运行将基于这些 GPU 重新规划并继续，保留下来的工作进程不会重启。</translation>
    </message>
    <message>
        <source>%1 in the scenario&apos;s pool</source>
        <translation>场景资源池中有 %1 个</translation>
    </message>
    <message>
        <source>%1 in %2:</source>
        <translation>%2 中的 %1：</translation>
    </message>
    <message>
        <source>&amp;Resize</source>
        <translation>调整规模(&amp;R)</translation>
    </message>
</context>
<context>
    <name>sailor::studio::ResourceCanvas</name>
    <message>
        <source>Add region</source>
        <translation>添加区域</translation>
    </message>
    <message>
        <source>Add a region with one zone (same continent as the selected region)</source>
        <translation>添加一个含单个可用区的区域（与所选区域同一大洲）</translation>
    </message>
    <message>
        <source>Add zone</source>
        <translation>添加可用区</translation>
    </message>
    <message>
        <source>Add a zone to the selected region</source>
        <translation>向所选区域添加可用区</translation>
    </message>
    <message>
        <source>Add pool</source>
        <translation>添加 GPU 池</translation>
    </message>
    <message>
        <source>Add a GPU pool (8 GPUs) to the selected zone</source>
        <translation>向所选可用区添加 GPU 池（8 个 GPU）</translation>
    </message>
    <message>
        <source>Add link</source>
        <translation>添加链路</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>S%1: %2× %3 tp%4</source>
        <translation>S%1：%2× %3 tp%4</translation>
    </message>
    <message numerus="yes">
        <source>Region %1 (%2): %n zone(s)</source>
        <translation>
            <numerusform>区域 %1（%2）：%n 个可用区</numerusform>
        </translation>
    </message>
    <message>
        <source>Zone %1 in %2 (%3)</source>
        <translation>可用区 %1，属于 %2（%3）</translation>
    </message>
    <message>
        <source>spot</source>
        <translation>竞价</translation>
    </message>
    <message>
        <source>%1× %2 · $%3/h</source>
        <translation>%1× %2 · $%3/h</translation>
    </message>
    <message>
        <source>%1 pool in %2: %3 GPUs at $%4 per GPU-hour, %5; %6 GPUs per node</source>
        <translation>%2 中的 %1 GPU 池：%3 个 GPU，每 GPU·小时 $%4，%5；每节点 %6 个 GPU</translation>
    </message>
    <message>
        <source>on demand</source>
        <translation>按需</translation>
    </message>
    <message>
        <source>no pools</source>
        <translation>无 GPU 池</translation>
    </message>
    <message>
        <source>%1 GB/s · $%2/GB</source>
        <translation>%1 GB/s · $%2/GB</translation>
    </message>
    <message>
        <source>≤%1 GB/s (fit) · $%2/GB</source>
        <translation>≤%1 GB/s（拟合）· $%2/GB</translation>
    </message>
    <message>
        <source>%1→%2: %3</source>
        <translation>%1→%2：%3</translation>
    </message>
    <message>
        <source> ×%1</source>
        <translation> ×%1</translation>
    </message>
    <message>
        <source>Link %1 ↔ %2 (%3)
%4
Egress $%5/GB (%6)</source>
        <translation>链路 %1 ↔ %2（%3）
%4
出口流量 $%5/GB（%6）</translation>
    </message>
    <message>
        <source>%1 GB/s, latency %2 ms</source>
        <translation>%1 GB/s，延迟 %2 ms</translation>
    </message>
    <message>
        <source>SAILOR fit: bandwidth = %1·x² + %2·x + %3 GB/s, x = log2(MB), cap %4 GB/s</source>
        <translation>SAILOR 拟合：带宽 = %1·x² + %2·x + %3 GB/s，x = log2(MB)，上限 %4 GB/s</translation>
    </message>
    <message>
        <source>this pair</source>
        <translation>此可用区对</translation>
    </message>
    <message>
        <source>%1 default</source>
        <translation>%1默认值</translation>
    </message>
    <message>
        <source>%1 in %2</source>
        <translation>%2 中的 %1</translation>
    </message>
    <message>
        <source>The map is read-only</source>
        <translation>地图为只读</translation>
    </message>
    <message>
        <source>Select a region (or one of its zones) first</source>
        <translation>请先选择一个区域（或其中的可用区）</translation>
    </message>
    <message>
        <source>Select a zone first</source>
        <translation>请先选择一个可用区</translation>
    </message>
    <message>
        <source>Zone %1 already has a pool of every GPU type in the catalogue</source>
        <translation>可用区 %1 已包含目录中每种 GPU 类型的池</translation>
    </message>
    <message numerus="yes">
        <source>Select two zones for a link: click one, Ctrl+click the other (%n selected)</source>
        <translation>
            <numerusform>请为链路选择两个可用区：单击一个，再按住 Ctrl 单击另一个（已选 %n 个）</numerusform>
        </translation>
    </message>
    <message>
        <source>Select something to delete</source>
        <translation>请先选择要删除的对象</translation>
    </message>
    <message>
        <source>Delete the selected regions, zones, pools and links (with what they hold) in one step; Ctrl+click selects several</source>
        <translation>一步删除所选的区域、可用区、GPU 池和链路（连同其包含的内容）；按住 Ctrl 点击可多选</translation>
    </message>
    <message>
        <source>Add a network link between the two selected zones: click one zone, then Ctrl+click the other (or drag from one zone onto the other)</source>
        <translation>在所选的两个可用区之间添加网络链路：先点击一个可用区，再按住 Ctrl 点击另一个（或从一个可用区拖到另一个）</translation>
    </message>
    <message>
        <source>No zone pair %1, %2</source>
        <translation>不存在可用区对 %1、%2</translation>
    </message>
    <message>
        <source>owned</source>
        <translation>自有</translation>
    </message>
    <message>
        <source>Switched off: kept in the scenario, left out of planning</source>
        <translation>已停用：保留在场景中，规划时不使用</translation>
    </message>
</context>
<context>
    <name>sailor::studio::RunClient</name>
    <message>
        <source>Cannot create a temporary directory for the run&apos;s files: %1</source>
        <translation>无法为运行文件创建临时目录：%1</translation>
    </message>
    <message>
        <source>Cannot write %1 for the run.</source>
        <translation>无法为运行写入 %1。</translation>
    </message>
    <message>
        <source>Cannot start the runtime: %1 is not an executable file (install sailor next to the studio, or point $SAILOR_BIN at it).</source>
        <translation>无法启动运行时：%1 不是可执行文件（请将 sailor 安装在 studio 旁边，或将 $SAILOR_BIN 指向它）。</translation>
    </message>
    <message>
        <source>Cannot start the runtime %1: %2</source>
        <translation>无法启动运行时 %1：%2</translation>
    </message>
    <message>
        <source>Unreadable event from sailor run (line skipped): %1</source>
        <translation>sailor run 输出了无法解析的事件（已跳过该行）：%1</translation>
    </message>
    <message>
        <source>Stopped before the run started.</source>
        <translation>运行开始前已停止。</translation>
    </message>
    <message numerus="yes">
        <source>Stopped: sailor run did not end within %n second(s) of the interrupt and was killed.</source>
        <translation>
            <numerusform>已停止：sailor run 在中断后 %n 秒内未结束，已被强制终止。</numerusform>
        </translation>
    </message>
    <message>
        <source>sailor run ended abnormally (killed by a signal).</source>
        <translation>sailor run 异常结束（被信号终止）。</translation>
    </message>
    <message>
        <source>sailor run ended abnormally (killed by a signal): %1</source>
        <translation>sailor run 异常结束（被信号终止）：%1</translation>
    </message>
    <message>
        <source>The run could not be recorded, nothing was started: %1</source>
        <translation>无法记录运行，未启动任何内容：%1</translation>
    </message>
    <message>
        <source>sailor run refused its input, nothing was started: %1</source>
        <translation>sailor run 拒绝了输入，未启动任何内容：%1</translation>
    </message>
    <message>
        <source>(no message)</source>
        <translation>（无消息）</translation>
    </message>
    <message>
        <source>The run failed: %1</source>
        <translation>运行失败：%1</translation>
    </message>
    <message numerus="yes">
        <source>Stopped after %n iteration(s).</source>
        <translation>
            <numerusform>已在 %n 次迭代后停止。</numerusform>
        </translation>
    </message>
    <message>
        <source>sailor run exited with code %1.</source>
        <translation>sailor run 退出，退出码 %1。</translation>
    </message>
    <message>
        <source>sailor run exited with code %1: %2</source>
        <translation>sailor run 退出，退出码 %1：%2</translation>
    </message>
    <message>
        <source>sailor runs attach refused, nothing was taken over: %1</source>
        <translation>sailor runs attach 拒绝接管，未接管任何运行：%1</translation>
    </message>
    <message>
        <source>sailor runs resize ended abnormally (killed by a signal).</source>
        <translation>sailor runs resize 异常结束（被信号终止）。</translation>
    </message>
    <message>
        <source>sailor runs resize: done</source>
        <translation>sailor runs resize：完成</translation>
    </message>
    <message>
        <source>sailor runs resize exited with code %1.</source>
        <translation>sailor runs resize 以退出码 %1 结束。</translation>
    </message>
    <message>
        <source>Cannot start %1: %2</source>
        <translation>无法启动 %1：%2</translation>
    </message>
</context>
<context>
    <name>sailor::studio::RunMonitor</name>
    <message>
        <source>Workers</source>
        <translation>工作进程</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>Past runs</source>
        <translation>历史运行</translation>
    </message>
    <message>
        <source>Run %1 (%2): %3 processes, %4 iterations, %5 data, %6; model %7 scaled to hidden %8, sequence %9</source>
        <translation>运行 %1（%2）：%3 个进程，%4 次迭代，%5 数据，%6；模型 %7 缩小至隐藏层维度 %8、序列长度 %9</translation>
    </message>
    <message>
        <source>rank %1: %2</source>
        <translation>rank %1：%2</translation>
    </message>
    <message>
        <source>warning: %1</source>
        <translation>警告：%1</translation>
    </message>
    <message numerus="yes">
        <source>%n worker process(es) started</source>
        <translation>
            <numerusform>已启动 %n 个工作进程</numerusform>
        </translation>
    </message>
    <message>
        <source>workers ready (%1) after %2 s</source>
        <translation>工作进程已就绪（%1），用时 %2 s</translation>
    </message>
    <message>
        <source>Rank %1 failed (stage %2, replica %3, tp rank %4): %5</source>
        <translation>Rank %1 失败（阶段 %2，副本 %3，tp rank %4）：%5</translation>
    </message>
    <message>
        <source>The run failed: %1</source>
        <translation>运行失败：%1</translation>
    </message>
    <message>
        <source>Last lines of its stderr:
%1</source>
        <translation>其 stderr 的最后几行：
%1</translation>
    </message>
    <message>
        <source>error: %1</source>
        <translation>错误：%1</translation>
    </message>
    <message numerus="yes">
        <source>run %1 after %n iteration(s), %2 s</source>
        <translation>
            <numerusform>运行%1，共 %n 次迭代，用时 %2 s</numerusform>
        </translation>
    </message>
    <message>
        <source>stored event %1 (%2) could not be read: %3</source>
        <translation>无法读取已存储的事件 %1（%2）：%3</translation>
    </message>
    <message>
        <source>stored iteration %1 could not be read: %2</source>
        <translation>无法读取已存储的迭代 %1：%2</translation>
    </message>
    <message>
        <source>No run yet: choose a plan and press Start, or open a past run.</source>
        <translation>尚无运行：请选择一个方案并点击“开始”，或打开一个历史运行。</translation>
    </message>
    <message>
        <source>Stored run %1 (%2)</source>
        <translation>已存储的运行 %1（%2）</translation>
    </message>
    <message>
        <source>Run %1 (%2)</source>
        <translation>运行 %1（%2）</translation>
    </message>
    <message>
        <source>iteration %1 of %2</source>
        <translation>迭代 %1 / %2</translation>
    </message>
    <message>
        <source>loss %1</source>
        <translation>损失 %1</translation>
    </message>
    <message>
        <source>%1 s per iteration</source>
        <translation>每次迭代 %1 s</translation>
    </message>
    <message numerus="yes">
        <source>%n worker(s) starting</source>
        <translation>
            <numerusform>%n 个工作进程启动中</numerusform>
        </translation>
    </message>
    <message>
        <source>bf16 compute</source>
        <translation>bf16 计算</translation>
    </message>
    <message>
        <source>SGD with momentum</source>
        <translation>带动量的 SGD</translation>
    </message>
    <message>
        <source>AdamW</source>
        <translation>AdamW</translation>
    </message>
    <message>
        <source>activations recomputed</source>
        <translation>激活重计算</translation>
    </message>
    <message>
        <source>Run directory: %1</source>
        <translation>运行目录：%1</translation>
    </message>
    <message>
        <source>%1 job %2: %3</source>
        <translation>%1 作业 %2：%3</translation>
    </message>
    <message>
        <source>, run directory %1</source>
        <translation>，运行目录 %1</translation>
    </message>
    <message>
        <source>Slurm</source>
        <translation>Slurm</translation>
    </message>
    <message>
        <source>state unknown</source>
        <translation>状态未知</translation>
    </message>
    <message>
        <source>Reconfigurations</source>
        <translation>重新配置</translation>
    </message>
    <message numerus="yes">
        <source>%n worker process(es) joining (generation %1)</source>
        <translation>
            <numerusform>%n 个工作进程加入（第 %1 代）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>checkpoint of iteration %1: %n shard(s), %2 MB in %3 s (%4)</source>
        <translation>
            <numerusform>迭代 %1 的检查点：%n 个分片，%2 MB，用时 %3 秒（%4）</numerusform>
        </translation>
    </message>
    <message>
        <source>; removed the checkpoints of iterations %1</source>
        <translation>；已删除迭代 %1 的检查点</translation>
    </message>
    <message>
        <source>resumed from iteration %1</source>
        <translation>从迭代 %1 恢复</translation>
    </message>
    <message numerus="yes">
        <source>resumed at iteration %1 from %2 (%n stored iteration(s) discarded)</source>
        <translation>
            <numerusform>从 %2 于迭代 %1 恢复（丢弃 %n 个已存储的迭代）</numerusform>
        </translation>
    </message>
    <message>
        <source>checkpoint</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>peers</source>
        <translation>对等进程</translation>
    </message>
    <message>
        <source>since iteration %1: %2</source>
        <translation>自迭代 %1 起：%2</translation>
    </message>
    <message numerus="yes">
        <source>reconfigured at iteration %1: %2: %3; state from %4, %n iteration(s) lost</source>
        <translation>
            <numerusform>于迭代 %1 重新配置：%2：%3；状态来自%4，损失 %n 个迭代</numerusform>
        </translation>
    </message>
    <message>
        <source>plan before: %1</source>
        <translation>之前的方案：%1</translation>
    </message>
    <message>
        <source>plan after: %1</source>
        <translation>之后的方案：%1</translation>
    </message>
    <message>
        <source>paused before iteration %1 (%2): waiting for resources: %3</source>
        <translation>在迭代 %1 之前暂停（%2）：等待资源：%3</translation>
    </message>
    <message>
        <source>paused: waiting for resources</source>
        <translation>已暂停：等待资源</translation>
    </message>
    <message>
        <source>Prediction</source>
        <translation>预测</translation>
    </message>
    <message>
        <source>Prediction %1: %2 s per iteration</source>
        <translation>预测 %1：每次迭代 %2 秒</translation>
    </message>
    <message>
        <source>overlapped gradient reduction</source>
        <translation>梯度归约与反向传播重叠</translation>
    </message>
    <message>
        <source>distributed optimizer</source>
        <translation>分布式优化器</translation>
    </message>
    <message>
        <source>%1 model chunks per GPU (interleaved 1F1B)</source>
        <translation>每个 GPU %1 个模型块（交错 1F1B）</translation>
    </message>
</context>
<context>
    <name>sailor::studio::ScenarioDocument</name>
    <message>
        <source>%1: got %2, expected %3</source>
        <translation>%1：实际为 %2，应为 %3</translation>
    </message>
    <message>
        <source>Bandwidth must be &gt; 0 GB/s (got %1)</source>
        <translation>带宽必须 &gt; 0 GB/s（实际为 %1）</translation>
    </message>
    <message>
        <source>Latency must be ≥ 0 s (got %1)</source>
        <translation>延迟必须 ≥ 0 s（实际为 %1）</translation>
    </message>
    <message>
        <source>A fitted link&apos;s cap must be &gt; 0 B/s (got %1)</source>
        <translation>拟合链路的带宽上限必须 &gt; 0 B/s（实际为 %1）</translation>
    </message>
    <message>
        <source>Missing default link for %1</source>
        <translation>缺少%1的默认链路</translation>
    </message>
    <message>
        <source>Default egress must be ≥ 0 $/GB (got %1)</source>
        <translation>默认出口流量费用必须 ≥ 0 $/GB（实际为 %1）</translation>
    </message>
    <message>
        <source>nothing</source>
        <translation>空</translation>
    </message>
    <message>
        <source>Region %1 needs a continent (got an empty name)</source>
        <translation>区域 %1 需要指定大洲（实际为空）</translation>
    </message>
    <message>
        <source>A zone name must not be empty</source>
        <translation>可用区名称不能为空</translation>
    </message>
    <message>
        <source>Zone &quot;%1&quot; is not in the scenario (expected one of: %2)</source>
        <translation>场景中没有可用区“%1”（应为以下之一：%2）</translation>
    </message>
    <message>
        <source>Unknown GPU type &quot;%1&quot; (expected one of: %2)</source>
        <translation>未知的 GPU 类型“%1”（应为以下之一：%2）</translation>
    </message>
    <message>
        <source>GPU count must be ≥ 0 (got %1)</source>
        <translation>GPU 数量必须 ≥ 0（实际为 %1）</translation>
    </message>
    <message>
        <source>Price must be ≥ 0 $/GPU-hour (got %1)</source>
        <translation>价格必须 ≥ 0 $/GPU·小时（实际为 %1）</translation>
    </message>
    <message>
        <source>GPUs per node must be ≥ 1 (got %1)</source>
        <translation>每节点 GPU 数必须 ≥ 1（实际为 %1）</translation>
    </message>
    <message>
        <source>Cannot read %1</source>
        <translation>无法读取 %1</translation>
    </message>
    <message>
        <source>%1 is not valid JSON: %2</source>
        <translation>%1 不是有效的 JSON：%2</translation>
    </message>
    <message>
        <source>%1: expected a JSON object with regions, pools and network</source>
        <translation>%1：应为包含 regions、pools 和 network 的 JSON 对象</translation>
    </message>
    <message>
        <source>%1: %2: got %3, expected %4</source>
        <translation>%1：%2：实际为 %3，应为 %4</translation>
    </message>
    <message>
        <source>No resources: %1</source>
        <translation>无资源：%1</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>The scenario needs a name (got an empty name)</source>
        <translation>场景需要名称（实际为空）</translation>
    </message>
    <message>
        <source>Rename scenario to %1</source>
        <translation>将场景重命名为 %1</translation>
    </message>
    <message>
        <source>Edit description</source>
        <translation>编辑描述</translation>
    </message>
    <message>
        <source>A region needs a name (got an empty name)</source>
        <translation>区域需要名称（实际为空）</translation>
    </message>
    <message>
        <source>Region name &quot;%1&quot; is already used (expected a new name)</source>
        <translation>区域名称“%1”已被使用（请使用新名称）</translation>
    </message>
    <message>
        <source>A region needs a continent (got an empty name)</source>
        <translation>区域需要指定大洲（实际为空）</translation>
    </message>
    <message>
        <source>A zone needs a name (got an empty name)</source>
        <translation>可用区需要名称（实际为空）</translation>
    </message>
    <message>
        <source>Zone name &quot;%1&quot; is already used (expected a new name)</source>
        <translation>可用区名称“%1”已被使用（请使用新名称）</translation>
    </message>
    <message>
        <source>Add region %1</source>
        <translation>添加区域 %1</translation>
    </message>
    <message>
        <source>No region %1</source>
        <translation>不存在区域 %1</translation>
    </message>
    <message>
        <source>Rename region to %1</source>
        <translation>将区域重命名为 %1</translation>
    </message>
    <message>
        <source>Set continent of %1</source>
        <translation>设置 %1 的大洲</translation>
    </message>
    <message>
        <source>A scenario needs at least one region: add another before removing %1</source>
        <translation>场景至少需要一个区域：请先添加另一个区域，再删除 %1</translation>
    </message>
    <message>
        <source>Remove region %1</source>
        <translation>删除区域 %1</translation>
    </message>
    <message>
        <source>Add zone %1</source>
        <translation>添加可用区 %1</translation>
    </message>
    <message>
        <source>No zone &quot;%1&quot;</source>
        <translation>不存在可用区“%1”</translation>
    </message>
    <message>
        <source>Rename zone %1 to %2</source>
        <translation>将可用区 %1 重命名为 %2</translation>
    </message>
    <message>
        <source>Region %1 needs at least one zone: remove the region instead of its last zone %2</source>
        <translation>区域 %1 至少需要一个可用区：请删除整个区域，而不是其最后一个可用区 %2</translation>
    </message>
    <message>
        <source>Remove zone %1</source>
        <translation>删除可用区 %1</translation>
    </message>
    <message>
        <source>Zone %1 already has a %2 pool (expected one pool per zone and GPU type)</source>
        <translation>可用区 %1 已有 %2 GPU 池（每个可用区的每种 GPU 类型只能有一个池）</translation>
    </message>
    <message>
        <source>Add %1 pool in %2</source>
        <translation>在 %2 中添加 %1 GPU 池</translation>
    </message>
    <message>
        <source>No pool %1</source>
        <translation>不存在 GPU 池 %1</translation>
    </message>
    <message>
        <source>Edit %1 pool in %2</source>
        <translation>编辑 %2 中的 %1 GPU 池</translation>
    </message>
    <message>
        <source>Remove %1 pool in %2</source>
        <translation>删除 %2 中的 %1 GPU 池</translation>
    </message>
    <message>
        <source>Egress must be ≥ 0 $/GB (got %1)</source>
        <translation>出口流量费用必须 ≥ 0 $/GB（实际为 %1）</translation>
    </message>
    <message>
        <source>A link joins two different zones (got %1 twice); links inside a zone use the same-zone default</source>
        <translation>链路必须连接两个不同的可用区（%1 出现了两次）；可用区内部的链路使用“同可用区”默认值</translation>
    </message>
    <message>
        <source>%1 and %2 are already linked (edit that link instead)</source>
        <translation>%1 与 %2 之间已有链路（请编辑该链路）</translation>
    </message>
    <message>
        <source>Add link %1 ↔ %2</source>
        <translation>添加链路 %1 ↔ %2</translation>
    </message>
    <message>
        <source>No link %1</source>
        <translation>不存在链路 %1</translation>
    </message>
    <message>
        <source>Edit link %1 ↔ %2</source>
        <translation>编辑链路 %1 ↔ %2</translation>
    </message>
    <message>
        <source>Remove link %1 ↔ %2</source>
        <translation>删除链路 %1 ↔ %2</translation>
    </message>
    <message>
        <source>No zone pair %1, %2</source>
        <translation>不存在可用区对 %1、%2</translation>
    </message>
    <message>
        <source>Set egress %1 ↔ %2</source>
        <translation>设置出口流量单价 %1 ↔ %2</translation>
    </message>
    <message>
        <source>Edit default link (%1)</source>
        <translation>编辑默认链路（%1）</translation>
    </message>
    <message>
        <source>Edit default egress (%1)</source>
        <translation>编辑默认出口流量单价（%1）</translation>
    </message>
    <message>
        <source>same zone</source>
        <translation>同可用区</translation>
    </message>
    <message>
        <source>same region</source>
        <translation>同区域</translation>
    </message>
    <message>
        <source>same continent</source>
        <translation>同大洲</translation>
    </message>
    <message>
        <source>across continents</source>
        <translation>跨大洲</translation>
    </message>
    <message>
        <source>Only regions, zones, pools and links can be removed</source>
        <translation>只能删除区域、可用区、GPU 池和链路</translation>
    </message>
    <message>
        <source>Select something to delete</source>
        <translation>请先选择要删除的对象</translation>
    </message>
    <message numerus="yes">
        <source>Remove %n items</source>
        <translation>
            <numerusform>删除 %n 项</numerusform>
        </translation>
    </message>
    <message>
        <source>Add %1 %2 from %3 in %4</source>
        <translation>从 %3 添加 %1 个 %2（%4）</translation>
    </message>
</context>
<context>
    <name>sailor::studio::TradeoffPlot</name>
    <message>
        <source>iterations/s</source>
        <translation>迭代/s</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>tokens/s</translation>
    </message>
    <message>
        <source>USD per iteration</source>
        <translation>USD / 迭代</translation>
    </message>
    <message>
        <source>USD per hour</source>
        <translation>USD / 小时</translation>
    </message>
    <message>
        <source>USD per million tokens</source>
        <translation>USD / 百万 token</translation>
    </message>
    <message>
        <source>&amp;Throughput in</source>
        <translation>吞吐量单位(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Cost in</source>
        <translation>成本单位(&amp;C)</translation>
    </message>
    <message>
        <source>Pareto frontier</source>
        <translation>帕累托前沿</translation>
    </message>
    <message>
        <source>Other Pareto plans</source>
        <translation>其他帕累托方案</translation>
    </message>
    <message>
        <source>Top plans</source>
        <translation>优选方案</translation>
    </message>
    <message>
        <source>Best plan</source>
        <translation>最佳方案</translation>
    </message>
    <message>
        <source>Selected</source>
        <translation>已选</translation>
    </message>
    <message>
        <source>%1× %2</source>
        <translation>%1× %2</translation>
    </message>
    <message>
        <source>Top plan</source>
        <translation>优选方案</translation>
    </message>
    <message>
        <source>Pareto plan</source>
        <translation>帕累托方案</translation>
    </message>
    <message>
        <source>, on the displayed frontier</source>
        <translation>，位于当前显示的前沿上</translation>
    </message>
    <message>
        <source>Plan %1 (%2)</source>
        <translation>方案 %1（%2）</translation>
    </message>
    <message>
        <source>Stages: %1, microbatch size %2</source>
        <translation>流水线阶段：%1，微批次大小 %2</translation>
    </message>
    <message>
        <source>GPUs: %1 (%2)</source>
        <translation>GPU：%1（%2）</translation>
    </message>
    <message>
        <source>Throughput: %1 it/s, %2 tokens/s</source>
        <translation>吞吐量：%1 it/s，%2 tokens/s</translation>
    </message>
    <message>
        <source>Cost: $%1 per iteration, $%2 per hour</source>
        <translation>成本：每次迭代 $%1，每小时 $%2</translation>
    </message>
    <message>
        <source>Best plan (minimum cost per iteration)</source>
        <translation>最佳方案（单次迭代成本最低）</translation>
    </message>
    <message>
        <source>Best plan (maximum throughput)</source>
        <translation>最佳方案（吞吐量最高）</translation>
    </message>
    <message>
        <source>Pareto frontier (in the displayed units)</source>
        <translation>帕累托前沿（按当前显示单位）</translation>
    </message>
    <message>
        <source>Cost (USD per iteration)</source>
        <translation>成本（USD / 迭代）</translation>
    </message>
    <message>
        <source>Cost (USD per hour)</source>
        <translation>成本（USD / 小时）</translation>
    </message>
    <message>
        <source>Cost (USD per million tokens)</source>
        <translation>成本（USD / 百万 token）</translation>
    </message>
    <message>
        <source>Throughput (tokens/s)</source>
        <translation>吞吐量 (tokens/s)</translation>
    </message>
    <message>
        <source>Throughput (iterations/s)</source>
        <translation>吞吐量（迭代/s）</translation>
    </message>
    <message>
        <source>max $%1 per iteration</source>
        <translation>每次迭代最多 $%1</translation>
    </message>
    <message>
        <source>max $%1 per hour</source>
        <translation>每小时最多 $%1</translation>
    </message>
    <message>
        <source>min %1 iterations/s</source>
        <translation>至少 %1 迭代/s</translation>
    </message>
    <message>
        <source>Constraints: %1</source>
        <translation>约束：%1</translation>
    </message>
    <message>
        <source>No planner result yet: plan to see the trade-off between throughput and cost.</source>
        <translation>尚无规划结果：进行规划后即可查看吞吐量与成本之间的权衡。</translation>
    </message>
    <message>
        <source>No plan: %1</source>
        <translation>无可行方案：%1</translation>
    </message>
    <message>
        <source>The planner returned no plan.</source>
        <translation>规划器未返回任何方案。</translation>
    </message>
    <message>
        <source>Knee: cheapest within 1% / 5% of the best throughput</source>
        <translation>拐点：吞吐量距最佳不超过 1% / 5% 的最便宜方案</translation>
    </message>
    <message>
        <source>, the knee: the cheapest frontier plan %1 of the best throughput</source>
        <translation>，拐点：吞吐量%1的最便宜前沿方案</translation>
    </message>
    <message>
        <source>%1%</source>
        <translation>%1%</translation>
    </message>
    <message>
        <source>within %1</source>
        <translation>距最佳不超过 %1</translation>
    </message>
    <message>
        <source>the best plan</source>
        <translation>最佳方案</translation>
    </message>
    <message>
        <source>the fastest frontier plan</source>
        <translation>最快的前沿方案</translation>
    </message>
    <message>
        <source>within %1 of its throughput, %2 itself</source>
        <translation>吞吐量距其不超过 %1：%2本身</translation>
    </message>
    <message>
        <source>within %1, plan %2 (%3 GPUs, $%4 per iteration, %5% cheaper)</source>
        <translation>不超过 %1：方案 %2（%3 个 GPU，每次迭代 $%4，便宜 %5%）</translation>
    </message>
    <message>
        <source>Knee: %1.</source>
        <translation>拐点：%1。</translation>
    </message>
    <message>
        <source>%1% more</source>
        <translation>多 %1%</translation>
    </message>
    <message>
        <source>$%1 more</source>
        <translation>多 $%1</translation>
    </message>
    <message>
        <source>%1 buys %2% more throughput than the next-cheaper frontier plan (%3 GPUs) for %4 per iteration.</source>
        <translation>%1比下一个更便宜的前沿方案（%3 个 GPU）吞吐量高 %2%，每次迭代的成本%4。</translation>
    </message>
    <message>
        <source>The best plan</source>
        <translation>最佳方案</translation>
    </message>
    <message>
        <source>The fastest frontier plan</source>
        <translation>最快的前沿方案</translation>
    </message>
    <message>
        <source>days to train (whole run)</source>
        <translation>训练天数（整个训练）</translation>
    </message>
    <message>
        <source>total USD (whole run)</source>
        <translation>总美元（整个训练）</translation>
    </message>
    <message>
        <source>Whole run: %1 days, $%2 in total, %3% of the time training</source>
        <translation>整个训练：%1 天，共 $%2，%3% 的时间在训练</translation>
    </message>
    <message>
        <source>Cost of the whole run (USD, failures included)</source>
        <translation>整个训练的成本（美元，含故障）</translation>
    </message>
    <message>
        <source>deadline %1 days</source>
        <translation>截止期限 %1 天</translation>
    </message>
    <message>
        <source>budget $%1</source>
        <translation>预算 $%1</translation>
    </message>
    <message>
        <source>Set the tokens to train in the job panel to see each plan&apos;s whole run: days and total USD, failures included.</source>
        <translation>在作业面板中填写训练 token 数，即可查看每个方案的整个训练：天数和总美元（含故障）。</translation>
    </message>
    <message>
        <source>Days to train (fewer above)</source>
        <translation>训练天数（越少越靠上）</translation>
    </message>
</context>
</TS>
