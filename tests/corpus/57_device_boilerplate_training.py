import torch
import torch.nn as nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("using", device)

inputs = torch.Tensor([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]]).to(device)
targets = torch.FloatTensor([[1.0], [1.0], [2.0], [0.0]]).to(device)

model = nn.Linear(2, 1).to(device)
with torch.no_grad():
    model.weight.copy_(torch.Tensor([[0.1, -0.2]]))
    model.bias.fill_(0.05)
optimizer = torch.optim.SGD(model.parameters(), lr=0.2)

for epoch in range(30):
    optimizer.zero_grad()
    loss = ((model(inputs) - targets) ** 2).mean()
    loss.backward()
    optimizer.step()
    if epoch % 10 == 9:
        print(f"epoch {epoch + 1}: loss {loss.item():.5f} on {loss.device}")

print(model.weight.data.cpu(), model.bias.data.cpu())
print(next(model.parameters()).device.type, inputs.is_cuda)
