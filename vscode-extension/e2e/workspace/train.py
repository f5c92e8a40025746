import torch
import torch.nn as nn


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(16, 4).cuda()
    x = torch.randn(8, 16, device=device)
    loss = model(x).sum()
    loss.backward()
    torch.cuda.synchronize()
    print("loss", loss.item())


if __name__ == "__main__":
    main()
