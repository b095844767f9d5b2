# training metrics kept in defaultdict, Counter and deque
from collections import Counter, OrderedDict, defaultdict, deque

import torch

history = defaultdict(list)
for epoch in range(3):
    history["loss"].append(1.0 / (epoch + 1))
    history["acc"].append(epoch * 0.25)
print(history["loss"], dict(history), len(history))
print(history)
counts = defaultdict(int)
for label in [1, 0, 1, 2, 1]:
    counts[label] += 1
print(sorted(counts.items()), counts[7], 7 in counts)
fresh = defaultdict(lambda: "?")
print(fresh["x"], type(fresh).__name__, isinstance(fresh, dict))

labels = torch.tensor([0, 2, 2, 1, 2, 0])
c = Counter(labels.tolist())
print(c, c.most_common(2), c[5], sum(c.values()), c.total())
c.update([0, 0])
c.subtract({2: 1})
print(c, sorted(c.elements()), list(c.keys()))
print(Counter("hello") + Counter("world"), Counter(a=2) - Counter(a=5))

window = deque(maxlen=3)
for loss in [4.0, 3.0, 2.5, 2.0, 1.0]:
    window.append(loss)
    print(f"moving average {sum(window) / len(window):.3f} over {list(window)}")
print(window, window.maxlen, window[0], window[-1])
window.appendleft(9.0)
window.rotate(1)
print(window, window.popleft(), window.pop(), window)
q = deque([1, 2, 3])
q.extend(range(4, 6))
q.extendleft([0, -1])
q[0] = 100
del q[1]
print(q, 3 in q, q.index(3), q.count(5), q * 2, len(q + deque([7])))
for i, v in enumerate(q):
    if i > 1:
        break
    print(i, v)
print(OrderedDict(a=1), type(q), isinstance(c, Counter))
match q:
    case deque([first, *rest]):
        print("a deque starting with", first, len(rest))
