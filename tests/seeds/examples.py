"""The Python examples of ../shared/seeds/, with numgrad in place of torch (run by test_seeds.py)."""
import numgrad as torch

x = torch.tensor(2., requires_grad=True)
u = x * x
u.retain_grad()
a, b = 2 * u, 3 * u
loss = a + b
loss.backward()
print("values:", u.item(), a.item(), b.item(), loss.item())
print("gradients:", u.grad.item(), x.grad.item())

x = torch.tensor(2., requires_grad=True)
u = x * x
a, b = 2 * u, 3 * u
print("shared node:", a.grad_fn.next_functions[0][0] is u.grad_fn,
      b.grad_fn.next_functions[0][0] is u.grad_fn)
edges = u.grad_fn.next_functions
print("leaf edges:", [(type(node).__name__, slot) for node, slot in edges])
print("same leaf:", edges[0][0] is edges[1][0])

x = torch.tensor([2., 3.], requires_grad=True)
y = torch.stack((x[0] ** 2, x[0] * x[1]))
(g,) = torch.autograd.grad(y, x, grad_outputs=torch.tensor([1., 4.]))
print("VJP:", g.tolist(), "x.grad:", x.grad)

x = torch.tensor(2., requires_grad=True)
for _ in range(2):
    u = x * x  # A fresh forward graph each time.
    (2*u + 3*u).backward()
    print("accumulated:", x.grad.item())
x.grad = None
u = x * x
(2*u + 3*u).backward()
print("after reset:", x.grad.item())

x = torch.tensor(2., requires_grad=True)
y = x * x
y.backward()
try:
    y.backward()
except RuntimeError as error:
    print("reused graph:", type(error).__name__)

x = torch.tensor(2., requires_grad=True)
y = x * x
with torch.no_grad():
    x.add_(1)
try:
    y.backward()
except RuntimeError as error:
    print("modified saved input:", type(error).__name__)

x = torch.tensor(2., requires_grad=True)
(g,) = torch.autograd.grad(5*x*x, x, create_graph=True)
(h,) = torch.autograd.grad(g, x)
print("derivatives:", g.item(), h.item())

x = torch.tensor(2.0, requires_grad=True)
y = x * x + 3 * x
y.backward()
print(x.grad)  # tensor(7.)
x = torch.tensor(2.0, requires_grad=True)
y = x * x + 3 * x
print(y.grad_fn)
x = torch.tensor(2.0, requires_grad=True)
y = x * x
y.backward()
print(x.grad)  # tensor(4.)
y = x * x
y.backward()
print(x.grad)  # tensor(8.): not 4, gradients accumulate
