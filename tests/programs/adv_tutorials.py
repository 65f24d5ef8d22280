"""Source: pytorch/tutorials (advanced_source/neural_style_tutorial, beginner_source/fgsm_tutorial,
beginner_source/knowledge_distillation_tutorial, intermediate_source/pruning_tutorial,
intermediate_source/parametrizations, intermediate_source/per_sample_grads (torch.func),
intermediate_source/forward_ad_usage, intermediate_source/char_rnn_classification_tutorial), in small
on synthetic images and names (numpy, the same for every framework).

run(torch, init=None) -> dict(out={stage: values}, init=...)."""
import importlib
import string
from collections import defaultdict

import numpy as np

from . import same_start


def neural_style(torch, start, out, rng):
    nn, F, optim = torch.nn, torch.nn.functional, torch.optim
    content_img = torch.from_numpy(start.setdefault("content", rng.random((1, 3, 16, 16)).astype(np.float32)))
    style_img = torch.from_numpy(start.setdefault("style", rng.random((1, 3, 16, 16)).astype(np.float32)))

    class ContentLoss(nn.Module):
        def __init__(self, target):
            super().__init__()
            self.target = target.detach()

        def forward(self, input):
            self.loss = F.mse_loss(input, self.target)
            return input

    def gram_matrix(input):
        a, b, c, d = input.size()
        features = input.view(a * b, c * d)
        G = torch.mm(features, features.t())
        return G.div(a * b * c * d)

    class StyleLoss(nn.Module):
        def __init__(self, target_feature):
            super().__init__()
            self.target = gram_matrix(target_feature).detach()

        def forward(self, input):
            G = gram_matrix(input)
            self.loss = F.mse_loss(G, self.target)
            return input

    cnn = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(inplace=True), nn.Conv2d(8, 8, 3, padding=1),
                        nn.ReLU(inplace=True), nn.MaxPool2d(2, 2), nn.Conv2d(8, 16, 3, padding=1),
                        nn.ReLU(inplace=True), nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(inplace=True)).eval()
    same_start(torch, start, "vgg", cnn)
    cnn_normalization_mean = torch.tensor([0.485, 0.456, 0.406])
    cnn_normalization_std = torch.tensor([0.229, 0.224, 0.225])

    class Normalization(nn.Module):
        def __init__(self, mean, std):
            super().__init__()
            self.mean = torch.tensor(mean).view(-1, 1, 1)
            self.std = torch.tensor(std).view(-1, 1, 1)

        def forward(self, img):
            return (img - self.mean) / self.std

    content_layers_default = ['conv_4']
    style_layers_default = ['conv_1', 'conv_2', 'conv_3', 'conv_4']

    def get_style_model_and_losses(cnn, normalization_mean, normalization_std, style_img, content_img,
                                   content_layers=content_layers_default, style_layers=style_layers_default):
        normalization = Normalization(normalization_mean, normalization_std)
        content_losses = []
        style_losses = []
        model = nn.Sequential(normalization)
        i = 0
        for layer in cnn.children():
            if isinstance(layer, nn.Conv2d):
                i += 1
                name = 'conv_{}'.format(i)
            elif isinstance(layer, nn.ReLU):
                name = 'relu_{}'.format(i)
                layer = nn.ReLU(inplace=False)
            elif isinstance(layer, nn.MaxPool2d):
                name = 'pool_{}'.format(i)
            elif isinstance(layer, nn.BatchNorm2d):
                name = 'bn_{}'.format(i)
            else:
                raise RuntimeError('Unrecognized layer: {}'.format(layer.__class__.__name__))
            model.add_module(name, layer)
            if name in content_layers:
                target = model(content_img).detach()
                content_loss = ContentLoss(target)
                model.add_module("content_loss_{}".format(i), content_loss)
                content_losses.append(content_loss)
            if name in style_layers:
                target_feature = model(style_img).detach()
                style_loss = StyleLoss(target_feature)
                model.add_module("style_loss_{}".format(i), style_loss)
                style_losses.append(style_loss)
        for i in range(len(model) - 1, -1, -1):
            if isinstance(model[i], ContentLoss) or isinstance(model[i], StyleLoss):
                break
        model = model[:(i + 1)]
        return model, style_losses, content_losses

    input_img = content_img.clone()

    def get_input_optimizer(input_img):
        return optim.LBFGS([input_img])

    model, style_losses, content_losses = get_style_model_and_losses(
        cnn, cnn_normalization_mean, cnn_normalization_std, style_img, content_img)
    input_img.requires_grad_(True)
    model.eval()
    model.requires_grad_(False)
    optimizer = get_input_optimizer(input_img)
    out["style_len"] = [len(model), sum(1 for p in model.parameters() if p.requires_grad)]
    run = [0]
    while run[0] <= 12:
        def closure():
            with torch.no_grad():
                input_img.clamp_(0, 1)
            optimizer.zero_grad()
            model(input_img)
            style_score = 0
            content_score = 0
            for sl in style_losses:
                style_score += sl.loss
            for cl in content_losses:
                content_score += cl.loss
            style_score *= 1000
            content_score *= 1
            loss = style_score + content_score
            loss.backward()
            run[0] += 1
            out["style"].append(style_score.item())
            out["content"].append(content_score.item())
            return style_score + content_score
        optimizer.step(closure)
    with torch.no_grad():
        input_img.clamp_(0, 1)
    out["style_img_mean"] = [input_img.mean().item()]


def fgsm(torch, start, out, rng):
    nn, F = torch.nn, torch.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 4, 3, 1)
            self.conv2 = nn.Conv2d(4, 8, 3, 1)
            self.dropout1 = nn.Dropout(0.25)
            self.fc1 = nn.Linear(8 * 5 * 5, 32)
            self.fc2 = nn.Linear(32, 10)

        def forward(self, x):
            x = F.relu(self.conv1(x))
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = self.dropout1(x)
            x = torch.flatten(x, 1)
            x = F.relu(self.fc1(x))
            return F.log_softmax(self.fc2(x), dim=1)

    model = same_start(torch, start, "fgsm", Net())
    model.eval()
    imgs = torch.from_numpy(start.setdefault("fgsm_x", rng.random((12, 1, 14, 14)).astype(np.float32)))
    labels = torch.from_numpy(start.setdefault("fgsm_y", rng.integers(0, 10, 12)))

    def fgsm_attack(image, epsilon, data_grad):
        sign_data_grad = data_grad.sign()
        perturbed_image = image + epsilon * sign_data_grad
        perturbed_image = torch.clamp(perturbed_image, 0, 1)
        return perturbed_image

    def denorm(batch, mean=[0.1307], std=[0.3081]):
        if isinstance(mean, list):
            mean = torch.tensor(mean)
        if isinstance(std, list):
            std = torch.tensor(std)
        return batch * std.view(1, -1, 1, 1) + mean.view(1, -1, 1, 1)

    for epsilon in [0, .05, .1, .2]:
        correct, adv = 0, []
        for i in range(len(imgs)):
            data, target = imgs[i:i + 1], labels[i:i + 1]
            data.requires_grad = True
            output = model(data)
            init_pred = output.max(1, keepdim=True)[1]
            loss = F.nll_loss(output, target)
            model.zero_grad()
            loss.backward()
            data_grad = data.grad.data
            data_denorm = denorm(data)
            perturbed_data = fgsm_attack(data_denorm, epsilon, data_grad)
            perturbed_data_normalized = (perturbed_data - 0.1307) / 0.3081
            output = model(perturbed_data_normalized)
            final_pred = output.max(1, keepdim=True)[1]
            if final_pred.item() == init_pred.item():
                correct += 1
            adv.append(output[0, target.item()].item())
            if len(adv) < 3:
                adv_ex = perturbed_data.squeeze().detach().cpu().numpy()
                out["adv_shape"] = list(adv_ex.shape)
        out["fgsm_correct"].append(correct)
        out["fgsm_logp"].extend(adv)


def distillation(torch, start, out, rng):
    nn = torch.nn
    X = torch.from_numpy(start.setdefault("kd_x", rng.standard_normal((64, 20)).astype(np.float32)))
    y = torch.from_numpy(start.setdefault("kd_y", rng.integers(0, 5, 64)))
    teacher = same_start(torch, start, "teacher", nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5)))
    student = same_start(torch, start, "student", nn.Sequential(nn.Linear(20, 8), nn.ReLU(), nn.Linear(8, 5)))
    ce_loss = nn.CrossEntropyLoss()
    opt_t = torch.optim.Adam(teacher.parameters(), lr=0.01)
    for _ in range(10):
        opt_t.zero_grad()
        loss = ce_loss(teacher(X), y)
        loss.backward()
        opt_t.step()
        out["teacher"].append(loss.item())
    T, soft_target_loss_weight, ce_loss_weight = 2, 0.25, 0.75
    optimizer = torch.optim.Adam(student.parameters(), lr=0.01)
    teacher.eval()
    student.train()
    for _ in range(10):
        optimizer.zero_grad()
        with torch.no_grad():
            teacher_logits = teacher(X)
        student_logits = student(X)
        soft_targets = nn.functional.softmax(teacher_logits / T, dim=-1)
        soft_prob = nn.functional.log_softmax(student_logits / T, dim=-1)
        soft_targets_loss = torch.sum(soft_targets * (soft_targets.log() - soft_prob)) / soft_prob.size()[0] * (T**2)
        label_loss = ce_loss(student_logits, y)
        loss = soft_target_loss_weight * soft_targets_loss + ce_loss_weight * label_loss
        loss.backward()
        optimizer.step()
        out["student"].append(loss.item())
    kl = nn.KLDivLoss(reduction="batchmean", log_target=False)(soft_prob, soft_targets) * T ** 2
    out["kl"] = [kl.item()]
    cos = nn.CosineEmbeddingLoss()(student_logits, teacher_logits, torch.ones(64))
    out["cos"] = [cos.item()]
    hidden = []
    h = teacher[1].register_forward_hook(lambda m, i, o: hidden.append(o))
    teacher(X[:2])
    h.remove()
    teacher(X[:2])
    out["hooked"] = [len(hidden), list(hidden[0].shape)]


def pruning(torch, start, out, rng):
    nn, F = torch.nn, torch.nn.functional
    prune = importlib.import_module(torch.__name__ + ".nn.utils.prune")  # import torch.nn.utils.prune as prune

    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 3)
            self.conv2 = nn.Conv2d(6, 16, 3)
            self.fc1 = nn.Linear(16 * 2 * 2, 32)
            self.fc2 = nn.Linear(32, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = x.view(-1, int(x.nelement() / x.shape[0]))
            return self.fc2(F.relu(self.fc1(x)))

    model = same_start(torch, start, "prune", LeNet())
    module = model.conv1
    prune.l1_unstructured(module, name="weight", amount=0.3)
    prune.l1_unstructured(module, name="bias", amount=3)
    out["prune_names"] = [sorted(n for n, _ in module.named_parameters()), sorted(n for n, _ in module.named_buffers())]
    out["prune_hooks"] = [len(module._forward_pre_hooks)]
    out["prune_zeros"] = [float(torch.sum(module.weight == 0)), float(torch.sum(module.bias == 0))]
    prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
    out["prune_zeros"].append(float(torch.sum(module.weight == 0)))
    prune.remove(module, 'weight')
    out["prune_after_remove"] = [sorted(n for n, _ in module.named_parameters()), len(module._forward_pre_hooks)]
    parameters_to_prune = ((model.conv2, 'weight'), (model.fc1, 'weight'), (model.fc2, 'weight'))
    prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.2)
    out["global_zeros"] = [float(torch.sum(m.weight == 0)) for m, _ in parameters_to_prune]
    out["state_keys"] = sorted(model.state_dict().keys())
    x = torch.from_numpy(start.setdefault("prune_x", rng.random((8, 1, 14, 14)).astype(np.float32)))
    yy = torch.from_numpy(start.setdefault("prune_y", rng.integers(0, 10, 8)))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(4):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), yy)
        loss.backward()
        opt.step()
        out["pruned_train"].append(loss.item())
    out["still_zero"] = [float(torch.sum(model.fc1.weight == 0))]


def parametrizations(torch, start, out, rng):
    nn = torch.nn
    parametrize = torch.nn.utils.parametrize

    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    class MatrixExponential(nn.Module):
        def forward(self, X):
            return torch.matrix_exp(X)

    class Skew(nn.Module):
        def forward(self, X):
            A = X.triu(1)
            return A - A.transpose(-1, -2)

    layer = same_start(torch, start, "param_lin", nn.Linear(3, 3))
    parametrize.register_parametrization(layer, "weight", Symmetric())
    A = layer.weight
    out["sym"] = [bool(torch.allclose(A, A.T))] + A.reshape(-1).tolist()
    out["param_is"] = [parametrize.is_parametrized(layer), parametrize.is_parametrized(layer, "bias"),
                       type(layer.parametrizations.weight).__name__,
                       sorted(k for k in layer.state_dict())]
    layer2 = same_start(torch, start, "param_lin2", nn.Linear(3, 3))
    parametrize.register_parametrization(layer2, "weight", Skew())
    parametrize.register_parametrization(layer2, "weight", MatrixExponential())
    X = layer2.weight
    out["orth"] = [bool(torch.dist(X.T @ X, torch.eye(3)) < 1e-5)]
    opt = torch.optim.SGD(layer.parameters(), lr=0.1)
    inp = torch.from_numpy(start.setdefault("param_x", rng.standard_normal((6, 3)).astype(np.float32)))
    for _ in range(4):
        opt.zero_grad()
        loss = (layer(inp) ** 2).mean()
        loss.backward()
        opt.step()
        out["param_train"].append(loss.item())
    with parametrize.cached():
        out["cached"] = [bool(layer.weight is layer.weight)]
    parametrize.remove_parametrizations(layer, "weight", leave_parametrized=True)
    out["removed"] = [parametrize.is_parametrized(layer), type(layer.weight).__name__]
    ortho = nn.utils.parametrizations.orthogonal(nn.Linear(4, 4))
    Q = ortho.weight
    out["orthogonal"] = [bool(torch.allclose(Q.T @ Q, torch.eye(4), atol=1e-5))]


def per_sample_grads(torch, start, out, rng):
    nn, F = torch.nn, torch.nn.functional
    from_func = torch.func
    functional_call, vmap, grad = from_func.functional_call, from_func.vmap, from_func.grad

    model = same_start(torch, start, "psg", nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 3)))
    data = torch.from_numpy(start.setdefault("psg_x", rng.standard_normal((6, 5)).astype(np.float32)))
    targets = torch.from_numpy(start.setdefault("psg_y", rng.integers(0, 3, 6)))

    def loss_fn(predictions, targets):
        return F.nll_loss(predictions, targets)

    def compute_grad(sample, target):
        sample = sample.unsqueeze(0)
        target = target.unsqueeze(0)
        prediction = model(sample)
        loss = loss_fn(prediction, target)
        return torch.autograd.grad(loss, list(model.parameters()))

    manual = [compute_grad(data[i], targets[i]) for i in range(6)]
    manual = [torch.stack(shards) for shards in zip(*manual)]
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def compute_loss(params, buffers, sample, target):
        batch = sample.unsqueeze(0)
        targets = target.unsqueeze(0)
        predictions = functional_call(model, (params, buffers), (batch,))
        return loss_fn(predictions, targets)

    ft_compute_grad = grad(compute_loss)
    ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
    ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)
    out["psg_match"] = [bool(torch.allclose(a, b, atol=3e-6, rtol=1e-5))
                        for a, b in zip(manual, ft_per_sample_grads.values())]
    out["psg_values"] = torch.cat([g.reshape(-1) for g in ft_per_sample_grads.values()]).tolist()


def forward_ad(torch, start, out, rng):
    fwAD = torch.autograd.forward_ad
    F = torch.nn.functional
    primal = torch.from_numpy(start.setdefault("fw_p", rng.standard_normal((4, 4)).astype(np.float64)))
    tangent = torch.from_numpy(start.setdefault("fw_t", rng.standard_normal((4, 4)).astype(np.float64)))

    def fn(x, y):
        return x ** 2 + y ** 2

    with fwAD.dual_level():
        dual_input = fwAD.make_dual(primal, tangent)
        dual_output = fn(dual_input, primal)
        jvp = fwAD.unpack_dual(dual_output).tangent
        out["fw_jvp"] = jvp.reshape(-1).tolist()
        model = torch.nn.Linear(4, 4).double()
        same_start(torch, start, "fw_lin", model)
        params = {name: p for name, p in model.named_parameters()}
        tangents = {name: torch.rand_like(p) for name, p in params.items()}
        for name, p in params.items():
            delattr(model, name)
            setattr(model, name, fwAD.make_dual(p, torch.ones_like(p)))
        out_dual = model(primal)
        out["fw_model"] = fwAD.unpack_dual(out_dual).tangent.reshape(-1).tolist()
    jf = torch.func.jvp(lambda x: F.softplus(x).sum(1), (primal,), (tangent,))
    out["func_jvp"] = jf[1].tolist()


def char_rnn(torch, start, out, rng):
    nn = torch.nn
    allowed_characters = string.ascii_letters + " .,;'"
    n_letters = len(allowed_characters)

    def letterToIndex(letter):
        if letter not in allowed_characters:
            return allowed_characters.find("_")
        return allowed_characters.find(letter)

    def lineToTensor(line):
        tensor = torch.zeros(len(line), 1, n_letters)
        for li, letter in enumerate(line):
            tensor[li][0][letterToIndex(letter)] = 1
        return tensor

    names = {"English": ["Smith", "Jones", "Taylor", "Brown", "Wilson"], "Italian": ["Rossi", "Russo", "Ferrari",
             "Esposito", "Bianchi"], "Japanese": ["Sato", "Suzuki", "Takahashi", "Tanaka", "Watanabe"]}
    labels_uniq = list(names)

    class NamesDataset(torch.utils.data.Dataset):
        def __init__(self):
            self.data, self.data_tensors, self.labels, self.labels_tensors = [], [], [], []
            for label, lines in names.items():
                for name in lines:
                    self.data.append(name)
                    self.data_tensors.append(lineToTensor(name))
                    self.labels.append(label)
            for idx in range(len(self.labels)):
                temp_tensor = torch.tensor([labels_uniq.index(self.labels[idx])], dtype=torch.long)
                self.labels_tensors.append(temp_tensor)

        def __len__(self):
            return len(self.data)

        def __getitem__(self, idx):
            return self.labels_tensors[idx], self.data_tensors[idx], self.labels[idx], self.data[idx]

    alldata = NamesDataset()
    train_set, test_set = torch.utils.data.random_split(alldata, [.8, .2],
                                                        generator=torch.Generator(device="cpu").manual_seed(2024))
    out["split"] = [len(train_set), len(test_set)]

    class CharRNN(nn.Module):
        def __init__(self, input_size, hidden_size, output_size):
            super().__init__()
            self.rnn = nn.RNN(input_size, hidden_size)
            self.h2o = nn.Linear(hidden_size, output_size)
            self.softmax = nn.LogSoftmax(dim=1)

        def forward(self, line_tensor):
            rnn_out, hidden = self.rnn(line_tensor)
            output = self.h2o(hidden[0])
            output = self.softmax(output)
            return output

    rnn = same_start(torch, start, "charrnn", CharRNN(n_letters, 32, len(labels_uniq)))
    criterion = nn.NLLLoss()
    optimizer = torch.optim.SGD(rnn.parameters(), lr=0.05)
    order = [int(i) for i in start.setdefault("char_order", rng.permutation(len(alldata)))]
    rnn.train()
    for epoch in range(4):
        batches = [order[i:i + 5] for i in range(0, len(order), 5)]
        current_loss = 0
        for idx, batch in enumerate(batches):
            batch_loss = 0
            for i in batch:
                (label_tensor, text_tensor, label, text) = alldata[i]
                output = rnn.forward(text_tensor)
                loss = criterion(output, label_tensor)
                batch_loss += loss
            batch_loss.backward()
            nn.utils.clip_grad_norm_(rnn.parameters(), 3)
            optimizer.step()
            optimizer.zero_grad()
            current_loss += batch_loss.item() / len(batch)
        out["char_rnn"].append(current_loss / len(batches))
    confusion = torch.zeros(len(labels_uniq), len(labels_uniq))
    rnn.eval()
    with torch.no_grad():
        for i in range(len(test_set)):
            (label_tensor, text_tensor, label, text) = test_set[i]
            output = rnn(text_tensor)
            top_n, top_i = output.topk(1)
            guess_i = top_i[0].item()
            confusion[labels_uniq.index(label)][guess_i] += 1
    for i in range(len(labels_uniq)):
        denom = confusion[i].sum()
        if denom > 0:
            confusion[i] = confusion[i] / denom
    out["confusion"] = confusion.reshape(-1).tolist()


def run(torch, init=None, seed=0):
    torch.manual_seed(seed)
    start = {} if init is None else init
    out = defaultdict(list)
    rng = np.random.default_rng(seed)
    for stage in (neural_style, fgsm, distillation, pruning, parametrizations, per_sample_grads, forward_ad, char_rnn):
        stage(torch, start, out, rng)
    return dict(out=dict(out), init=start)
