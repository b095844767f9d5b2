import json, time, sys
from playground.pool import WorkerPool, SessionState
T = "import torch\nimport torch.nn as nn\n"
cases = {
 "float_size": T + "x = torch.zeros(1e5, 1e5)\n",
 "tensor_size": T + "n = torch.tensor(100000)\nx = torch.zeros(n, n)\n",
 "bool_size": T + "x = torch.zeros(True, 5)\n",
 "linear_float": T + "m = nn.Linear(1e5, 1e5)\n",
 "linspace_float": T + "x = torch.linspace(0, 1, 1e9)\n",
 "loop_2_63": T + "for i in range(2**63):\n    pass\n",
 "loop_2_64": T + "for i in range(2**64 + 5):\n    pass\n",
 "hook_str": T + "x = torch.ones(2, requires_grad=True)\nx.register_hook(str)\n(x * 2).sum().backward()\n",
 "hooks_many": T + "x = torch.ones(300, 300, requires_grad=True)\nfor i in range(5000):\n    x.register_hook(torch.exp)\n(x * 2).sum().backward()\n",
 "deep_seq": T + "m = nn.Sequential(" + ", ".join(["nn.Sequential(nn.Identity()"] * 80) + ")" * 80 + ")\ny = m(torch.ones(2))\n",
 "stack_rows": T + "x = torch.ones(1000000, 1)\ny = torch.stack(list(x))\n",
 "unbind": T + "x = torch.ones(1000000)\ny = x.unbind()\n",
 "size_of_tensor": T + "x = torch.ones(1000000)\ny = torch.Size(x)\n",
 "long_timeline": T + "x = torch.ones(1, requires_grad=True)\nfor i in range(10000):\n    y = x * 2\n    z = y + 1\n    w = z * 3\n    v = w - 1\n    u = v * 2\n    t = u + x\n    s = t * t\n    r = s + 1\n    q = r * 2\n",
 "addmm": T + "a = torch.ones(1000, 1000)\nb = torch.ones(1000, 1000)\nfor i in range(200):\n    c = torch.addmm(a, a, b)\n",
}
p = WorkerPool(2, seconds=8)
for name, prog in cases.items():
    t = time.time()
    a = p.answer(json.dumps({"type": "run", "id": 1, "program": prog}), SessionState())
    r = json.loads(a.reply)
    err = r.get("error") or (r.get("timeline") or {}).get("error")
    print(f"{name:16s} {time.time()-t:6.2f}s {len(a.reply)/1e6:7.2f}MB", r["type"], err and {k: err.get(k) for k in ("kind", "type", "message", "limit")}, flush=True)
p.close()
