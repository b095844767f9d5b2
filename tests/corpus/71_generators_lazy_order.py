import torch

def noisy_range(n):
    print("  (generator starts)")
    for i in range(n):
        print(f"  making {i}")
        yield i
    print("  (generator ends)")


print("a for loop asks for one item at a time:")
for v in noisy_range(3):
    print("loop got", v)

print("list() takes them all first:")
print(list(noisy_range(2)))


def fibonacci():
    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b


print([f for _, f in zip(range(10), fibonacci())])
fib = fibonacci()
print(next(fib), next(fib), next(fib), next(fib))


def flatten(nested):
    for item in nested:
        if isinstance(item, list):
            yield from flatten(item)
        else:
            yield item


print(list(flatten([1, [2, [3, 4]], [], [[5]]])))


def grads_of(params):
    for p in params:
        if p.grad is None:
            continue
        yield p.grad.norm().item()


x = torch.tensor([3.0, 4.0], requires_grad=True)
y = torch.tensor(2.0, requires_grad=True)
z = torch.tensor(1.0, requires_grad=True)
(x.sum() * y).backward()
print([round(g, 4) for g in grads_of([x, y, z])])
print(max(grads_of([x, y])), sum(grads_of([x, y, z])))


def tail_sum():
    try:
        yield 1
        yield 2
    finally:
        print("  finally runs at the end")


print(sum(tail_sum()))
total = 0
for k in tail_sum():
    total += k
print(total)


def gen_with_return():
    yield "x"
    return "ignored by for"


print([s for s in gen_with_return()])
it = gen_with_return()
print(next(it))
try:
    next(it)
except StopIteration:
    print("StopIteration after the last item")
