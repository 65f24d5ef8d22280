"""pytorch/examples programs in small, on synthetic data.

forward_forward: mnist_forward_forward -- a Layer subclassing nn.Linear that
owns its Adam and overrides train(), overlay_y_on_x through
x_[range(n), y] = x.max(), goodness = h.pow(2).mean(1), log1p(exp(cat(...))).
regression: fit a degree-4 polynomial with Linear + F.smooth_l1_loss and
param.data.add_(-lr * param.grad), poly_desc string formatting of tensors.
super_resolution: Conv2d stack + PixelShuffle, init.orthogonal_ with
init.calculate_gain('relu'), bicubic F.interpolate for the low-res input,
MSELoss/Adam, PSNR, the whole model saved and loaded.
fast_neural_style: its TransformerNet (ReflectionPad2d + Conv2d,
InstanceNorm2d(affine=True), residual blocks, nearest-upsampling conv), gram
matrices by bmm, normalize_batch with new_tensor/div_, content + style MSE
against a frozen feature net, the running_* keys deleted before loading.
vision_transformer: patches by unfold(2, p, p).unfold(3, p, p).permute(...),
a class token and positional embedding as Parameters (added in place),
LayerNorm + nn.MultiheadAttention + GELU MLP blocks, Adam(weight_decay)."""
import os
import re
import tempfile

import numpy as np

from . import same_start


def forward_forward(torch, init=None, seed=1, epochs=30, n=100):
    nn = torch.nn
    Adam = torch.optim.Adam
    torch.manual_seed(seed)
    device = torch.device("cpu")
    start = {} if init is None else init
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.standard_normal((n, 784)).astype(np.float32))
    y = torch.from_numpy(rng.integers(0, 10, n))
    if "y_neg" not in start:
        y_neg = y.clone()
        for idx, y_samp in enumerate(y):
            allowed_indices = list(range(10))
            allowed_indices.remove(y_samp.item())
            y_neg[idx] = torch.tensor(allowed_indices)[torch.randint(len(allowed_indices), size=(1,))].item()
        start["y_neg"] = y_neg.numpy()
    y_neg = torch.from_numpy(start["y_neg"].copy()).to(device)
    losses = []

    def overlay_y_on_x(x, y, classes=10):
        x_ = x.clone()
        x_[:, :classes] *= 0.0
        x_[range(x.shape[0]), y] = x.max()
        return x_

    class Layer(nn.Linear):
        def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
            super().__init__(in_features, out_features, bias, device, dtype)
            self.relu = torch.nn.ReLU()
            self.opt = Adam(self.parameters(), lr=0.03)
            self.threshold = 2.0
            self.num_epochs = epochs

        def forward(self, x):
            x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
            return self.relu(torch.mm(x_direction, self.weight.T) + self.bias.unsqueeze(0))

        def train(self, x_pos, x_neg):
            for i in range(self.num_epochs):
                g_pos = self.forward(x_pos).pow(2).mean(1)
                g_neg = self.forward(x_neg).pow(2).mean(1)
                loss = torch.log1p(torch.exp(torch.cat([-g_pos + self.threshold, g_neg - self.threshold]))).mean()
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
                losses.append(loss.item())
            return self.forward(x_pos).detach(), self.forward(x_neg).detach()

    class Net(torch.nn.Module):
        def __init__(self, dims):
            super().__init__()
            self.layers = []
            for d in range(len(dims) - 1):
                self.layers = self.layers + [Layer(dims[d], dims[d + 1]).to(device)]

        def predict(self, x):
            goodness_per_label = []
            for label in range(10):
                h = overlay_y_on_x(x, label)
                goodness = []
                for layer in self.layers:
                    h = layer(h)
                    goodness = goodness + [h.pow(2).mean(1)]
                goodness_per_label += [sum(goodness).unsqueeze(1)]
            return torch.cat(goodness_per_label, 1).argmax(1)

        def train(self, x_pos, x_neg):
            h_pos, h_neg = x_pos, x_neg
            for i, layer in enumerate(self.layers):
                h_pos, h_neg = layer.train(h_pos, h_neg)

    net = Net([784, 50, 50])
    for i, layer in enumerate(net.layers):
        same_start(torch, start, f"layer{i}", layer)
    net.train(overlay_y_on_x(x, y), overlay_y_on_x(x, y_neg))
    return {"losses": losses, "error": 1.0 - net.predict(x).eq(y).float().mean().item(), "init": start}


def regression(torch, seed=1, max_batches=3000):
    F = torch.nn.functional
    torch.manual_seed(seed)
    POLY_DEGREE = 4
    W_target = torch.randn(POLY_DEGREE, 1) * 5
    b_target = torch.randn(1) * 5

    def make_features(x):
        x = x.unsqueeze(1)
        return torch.cat([x ** i for i in range(1, POLY_DEGREE + 1)], 1)

    def f(x):
        return x.mm(W_target) + b_target.item()

    def poly_desc(W, b):
        result = "y = "
        for i, w in enumerate(W):
            result += "{:+.2f} x^{} ".format(w, i + 1)
        return result + "{:+.2f}".format(b[0])

    def get_batch(batch_size=32):
        x = make_features(torch.randn(batch_size))
        return x, f(x)

    fc = torch.nn.Linear(W_target.size(0), 1)
    batch_idx = 0
    while True:
        batch_idx += 1
        batch_x, batch_y = get_batch()
        fc.zero_grad()
        output = F.smooth_l1_loss(fc(batch_x), batch_y)
        loss = output.item()
        output.backward()
        for param in fc.parameters():
            param.data.add_(-0.1 * param.grad)
        if loss < 1e-3 or batch_idx >= max_batches:
            break
    err = float((fc.weight.view(-1) - W_target.view(-1)).abs().max())
    return {"loss": loss, "batches": batch_idx, "weight_error": err,
            "learned": poly_desc(fc.weight.view(-1), fc.bias), "actual": poly_desc(W_target.view(-1), b_target)}


def super_resolution(torch, init=None, seed=123, shuffle=True, epochs=3):
    nn, F, init_ = torch.nn, torch.nn.functional, torch.nn.init
    torch.manual_seed(seed)
    start = {} if init is None else init

    class Net(nn.Module):
        def __init__(self, upscale_factor):
            super().__init__()
            self.relu = nn.ReLU()
            self.conv1 = nn.Conv2d(1, 16, (5, 5), (1, 1), (2, 2))
            self.conv2 = nn.Conv2d(16, 16, (3, 3), (1, 1), (1, 1))
            self.conv3 = nn.Conv2d(16, 8, (3, 3), (1, 1), (1, 1))
            self.conv4 = nn.Conv2d(8, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
            self.pixel_shuffle = nn.PixelShuffle(upscale_factor)
            self._initialize_weights()

        def forward(self, x):
            x = self.relu(self.conv1(x))
            x = self.relu(self.conv2(x))
            x = self.relu(self.conv3(x))
            return self.pixel_shuffle(self.conv4(x))

        def _initialize_weights(self):
            init_.orthogonal_(self.conv1.weight, init_.calculate_gain("relu"))
            init_.orthogonal_(self.conv2.weight, init_.calculate_gain("relu"))
            init_.orthogonal_(self.conv3.weight, init_.calculate_gain("relu"))
            init_.orthogonal_(self.conv4.weight)

    # torch.save(model) pickles the class by name: it must be reachable from this module
    name = f"SuperResolutionNet_{torch.__name__}"
    Net = globals().setdefault(name, Net)
    Net.__name__ = Net.__qualname__ = name
    Net.__module__ = __name__

    rng = np.random.default_rng(7)
    yy, xx = np.mgrid[0:24, 0:24] / 24.0
    hr = np.stack([np.sin(2 * np.pi * (a * xx + b * yy)) * 0.5 + 0.5 for a, b in rng.uniform(0.5, 2, (16, 2))])
    hr = torch.from_numpy(hr[:, None].astype(np.float32))
    lr_ = F.interpolate(hr, scale_factor=1 / 3, mode="bicubic", align_corners=False)
    data = torch.utils.data
    loader = data.DataLoader(data.TensorDataset(lr_, hr), batch_size=4, shuffle=shuffle)
    model = same_start(torch, start, "net", Net(3))
    criterion = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    losses, psnrs = [], []
    for epoch in range(epochs):
        for iteration, batch in enumerate(loader, 1):
            optimizer.zero_grad()
            loss = criterion(model(batch[0]), batch[1])
            losses.append(loss.item())
            loss.backward()
            optimizer.step()
        avg_psnr = 0
        with torch.no_grad():
            for batch in loader:
                avg_psnr += 10 * np.log10(1 / criterion(model(batch[0]), batch[1]).item())
        psnrs.append(avg_psnr / len(loader))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model_epoch_{}.pth".format(epoch))
        torch.save(model, path)
        model2 = torch.load(path, weights_only=False)
    with torch.no_grad():
        out = model2(lr_[:1])
    out_y = (out[0].detach().numpy() * 255.0).clip(0, 255)
    return {"losses": losses, "psnr": psnrs, "out_shape": out_y.shape, "lr": lr_.numpy(), "init": start}


def fast_neural_style(torch, init=None, seed=42, steps=6):
    nn = torch.nn
    torch.manual_seed(seed)
    start = {} if init is None else init

    class ConvLayer(nn.Module):
        def __init__(self, in_channels, out_channels, kernel_size, stride):
            super(ConvLayer, self).__init__()
            self.reflection_pad = nn.ReflectionPad2d(kernel_size // 2)
            self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride)

        def forward(self, x):
            return self.conv2d(self.reflection_pad(x))

    class ResidualBlock(nn.Module):
        def __init__(self, channels):
            super(ResidualBlock, self).__init__()
            self.conv1 = ConvLayer(channels, channels, kernel_size=3, stride=1)
            self.in1 = nn.InstanceNorm2d(channels, affine=True)
            self.conv2 = ConvLayer(channels, channels, kernel_size=3, stride=1)
            self.in2 = nn.InstanceNorm2d(channels, affine=True)
            self.relu = nn.ReLU()

        def forward(self, x):
            out = self.relu(self.in1(self.conv1(x)))
            return self.in2(self.conv2(out)) + x

    class UpsampleConvLayer(nn.Module):
        def __init__(self, in_channels, out_channels, kernel_size, stride, upsample=None):
            super(UpsampleConvLayer, self).__init__()
            self.upsample = upsample
            self.reflection_pad = nn.ReflectionPad2d(kernel_size // 2)
            self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride)

        def forward(self, x):
            if self.upsample:
                x = nn.functional.interpolate(x, mode="nearest", scale_factor=self.upsample)
            return self.conv2d(self.reflection_pad(x))

    class TransformerNet(nn.Module):
        def __init__(self):
            super(TransformerNet, self).__init__()
            self.conv1 = ConvLayer(3, 8, kernel_size=9, stride=1)
            self.in1 = nn.InstanceNorm2d(8, affine=True)
            self.conv2 = ConvLayer(8, 16, kernel_size=3, stride=2)
            self.in2 = nn.InstanceNorm2d(16, affine=True)
            self.res1 = ResidualBlock(16)
            self.res2 = ResidualBlock(16)
            self.deconv1 = UpsampleConvLayer(16, 8, kernel_size=3, stride=1, upsample=2)
            self.in4 = nn.InstanceNorm2d(8, affine=True)
            self.deconv3 = ConvLayer(8, 3, kernel_size=9, stride=1)
            self.relu = nn.ReLU()

        def forward(self, X):
            y = self.relu(self.in1(self.conv1(X)))
            y = self.relu(self.in2(self.conv2(y)))
            y = self.res2(self.res1(y))
            y = self.relu(self.in4(self.deconv1(y)))
            return self.deconv3(y)

    def gram_matrix(y):
        (b, ch, h, w) = y.size()
        features = y.view(b, ch, w * h)
        return features.bmm(features.transpose(1, 2)) / (ch * h * w)

    def normalize_batch(batch):
        mean = batch.new_tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
        std = batch.new_tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)
        batch = batch.div_(255.0)
        return (batch - mean) / std

    features = same_start(torch, start, "features",
                           nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1)))
    for p in features.parameters():
        p.requires_grad = False
    transformer = same_start(torch, start, "transformer", TransformerNet())
    rng = np.random.default_rng(3)
    style = torch.from_numpy(rng.uniform(0, 255, (1, 3, 16, 16)).astype(np.float32))
    gram_style = gram_matrix(features(normalize_batch(style.repeat(2, 1, 1, 1))))
    optimizer = torch.optim.Adam(transformer.parameters(), 1e-3)
    mse_loss = nn.MSELoss()
    content, styles = [], []
    for it in range(steps):
        x = torch.from_numpy(rng.uniform(0, 255, (2, 3, 16, 16)).astype(np.float32))
        n_batch = len(x)
        optimizer.zero_grad()
        y = normalize_batch(transformer(x))
        x = normalize_batch(x)
        features_y, features_x = features(y), features(x)
        content_loss = 1e5 * mse_loss(features_y, features_x)
        style_loss = 1e10 * mse_loss(gram_matrix(features_y), gram_style[:n_batch, :, :])
        (content_loss + style_loss).backward()
        optimizer.step()
        content.append(content_loss.item())
        styles.append(style_loss.item())
    transformer.eval().cpu()
    state_dict = transformer.state_dict()
    for k in list(state_dict.keys()):
        if re.search(r"in\d+\.running_(mean|var)$", k):
            del state_dict[k]
    style_model = TransformerNet()
    style_model.load_state_dict(state_dict)
    with torch.no_grad():
        output = style_model(torch.from_numpy(rng.uniform(0, 255, (1, 3, 16, 16)).astype(np.float32))).cpu()
    return {"content": content, "style": styles, "output": output[0].clamp(0, 255).numpy(), "init": start}


def vision_transformer(torch, init=None, seed=0, dropout=0.1, shuffle=True, epochs=2):
    nn, optim = torch.nn, torch.optim
    torch.manual_seed(seed)
    start = {} if init is None else init
    patch_size, n_channels, latent_size, batch_size, num_heads, num_encoders = 4, 3, 16, 4, 2, 2

    class PatchExtractor(nn.Module):
        def __init__(self, patch_size=16):
            super().__init__()
            self.patch_size = patch_size

        def forward(self, input_data):
            batch_size, channels, height, width = input_data.size()
            assert height % self.patch_size == 0 and width % self.patch_size == 0
            num_patches = (height // self.patch_size) * (width // self.patch_size)
            return input_data.unfold(2, self.patch_size, self.patch_size).unfold(
                3, self.patch_size, self.patch_size).permute(0, 2, 3, 1, 4, 5).contiguous().view(
                batch_size, num_patches, -1)

    class InputEmbedding(nn.Module):
        def __init__(self):
            super(InputEmbedding, self).__init__()
            self.LinearProjection = nn.Linear(patch_size * patch_size * n_channels, latent_size)
            self.class_token = nn.Parameter(torch.randn(batch_size, 1, latent_size).to("cpu"))
            self.pos_embedding = nn.Parameter(torch.randn(batch_size, 1, latent_size).to("cpu"))

        def forward(self, input_data):
            patches = PatchExtractor(patch_size=patch_size)(input_data)
            linear_projection = self.LinearProjection(patches)
            b, n, _ = linear_projection.shape
            linear_projection = torch.cat((self.class_token, linear_projection), dim=1)
            pos_embed = self.pos_embedding[:, :n + 1, :]
            linear_projection += pos_embed
            return linear_projection

    class EncoderBlock(nn.Module):
        def __init__(self):
            super(EncoderBlock, self).__init__()
            self.norm = nn.LayerNorm(latent_size)
            self.attention = nn.MultiheadAttention(latent_size, num_heads, dropout=dropout)
            self.enc_MLP = nn.Sequential(nn.Linear(latent_size, latent_size * 4), nn.GELU(), nn.Dropout(dropout),
                                         nn.Linear(latent_size * 4, latent_size), nn.Dropout(dropout))

        def forward(self, emb_patches):
            first_norm = self.norm(emb_patches)
            attention_out = self.attention(first_norm, first_norm, first_norm)[0]
            first_added = attention_out + emb_patches
            return self.enc_MLP(self.norm(first_added)) + first_added

    class ViT(nn.Module):
        def __init__(self):
            super(ViT, self).__init__()
            self.embedding = InputEmbedding()
            self.encoders = nn.ModuleList([EncoderBlock() for _ in range(num_encoders)])
            self.MLPHead = nn.Sequential(nn.LayerNorm(latent_size), nn.Linear(latent_size, latent_size),
                                         nn.Linear(latent_size, 10))

        def forward(self, test_input):
            enc_output = self.embedding(test_input)
            for enc_layer in self.encoders:
                enc_output = enc_layer(enc_output)
            return self.MLPHead(enc_output[:, 0])

    rng = np.random.default_rng(11)
    labels = rng.integers(0, 10, 32)
    images = rng.random((32, 3, 16, 16), dtype=np.float32) * 0.5
    for i, c in enumerate(labels):
        images[i, c % 3, :, c:c + 4] += 0.5
    data = torch.utils.data
    ds = data.TensorDataset(torch.from_numpy(images), torch.from_numpy(labels))
    train_loader = data.DataLoader(ds, batch_size=batch_size, shuffle=shuffle)
    model = same_start(torch, start, "vit", ViT())
    optimizer = optim.Adam(model.parameters(), lr=1e-2, weight_decay=3e-2)
    criterion = nn.CrossEntropyLoss()
    losses, vals = [], []
    for epoch in range(epochs):
        model.train()
        for images_, labels_ in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(images_), labels_)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        model.eval()
        with torch.no_grad():
            vals.append(sum(criterion(model(i), l).item() for i, l in train_loader) / len(train_loader))
    return {"losses": losses, "val": vals, "init": start}
