"""pytorch/examples imagenet/main.py in small: a BasicBlock ResNet, AverageMeter/ProgressMeter,
accuracy(topk), StepLR, checkpoint dict save + resume, shutil.copyfile best."""
import os, shutil, tempfile, time
from enum import Enum
import numpy as np


class Summary(Enum):
    NONE = 0
    AVERAGE = 1
    SUM = 2
    COUNT = 3


class AverageMeter(object):
    def __init__(self, name, fmt=':f', summary_type=Summary.AVERAGE):
        self.name = name
        self.fmt = fmt
        self.summary_type = summary_type
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

    def __str__(self):
        fmtstr = '{name} {val' + self.fmt + '} ({avg' + self.fmt + '})'
        return fmtstr.format(**self.__dict__)

    def summary(self):
        return '{name} {avg:.3f}'.format(**self.__dict__)


class ProgressMeter(object):
    def __init__(self, num_batches, meters, prefix=""):
        num_digits = len(str(num_batches // 1))
        self.batch_fmtstr = '[{:' + str(num_digits) + 'd}/' + '{:' + str(num_digits) + 'd}]'
        self.meters = meters
        self.prefix = prefix
        self.num_batches = num_batches
        self.lines = []

    def display(self, batch):
        entries = [self.prefix + '[{}/{}]'.format(batch, self.num_batches)]
        entries += [str(meter) for meter in self.meters]
        self.lines.append('\t'.join(entries))


def build(torch):
    nn = torch.nn

    def conv3x3(in_planes, out_planes, stride=1):
        return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=1, bias=False)

    class BasicBlock(nn.Module):
        expansion = 1

        def __init__(self, inplanes, planes, stride=1, downsample=None):
            super().__init__()
            self.conv1 = conv3x3(inplanes, planes, stride)
            self.bn1 = nn.BatchNorm2d(planes)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = conv3x3(planes, planes)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample = downsample
            self.stride = stride

        def forward(self, x):
            identity = x
            out = self.conv1(x)
            out = self.bn1(out)
            out = self.relu(out)
            out = self.conv2(out)
            out = self.bn2(out)
            if self.downsample is not None:
                identity = self.downsample(x)
            out += identity
            out = self.relu(out)
            return out

    class ResNet(nn.Module):
        def __init__(self, block, layers, num_classes=10, zero_init_residual=True):
            super().__init__()
            self.inplanes = 8
            self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
            self.bn1 = nn.BatchNorm2d(self.inplanes)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
            self.layer1 = self._make_layer(block, 8, layers[0])
            self.layer2 = self._make_layer(block, 16, layers[1], stride=2)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(16 * block.expansion, num_classes)
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)
            if zero_init_residual:
                for m in self.modules():
                    if isinstance(m, BasicBlock) and m.bn2.weight is not None:
                        nn.init.constant_(m.bn2.weight, 0)

        def _make_layer(self, block, planes, blocks, stride=1):
            downsample = None
            if stride != 1 or self.inplanes != planes * block.expansion:
                downsample = nn.Sequential(
                    nn.Conv2d(self.inplanes, planes * block.expansion, kernel_size=1, stride=stride, bias=False),
                    nn.BatchNorm2d(planes * block.expansion),
                )
            layers = [block(self.inplanes, planes, stride, downsample)]
            self.inplanes = planes * block.expansion
            for _ in range(1, blocks):
                layers.append(block(self.inplanes, planes))
            return nn.Sequential(*layers)

        def forward(self, x):
            x = self.conv1(x)
            x = self.bn1(x)
            x = self.relu(x)
            x = self.maxpool(x)
            x = self.layer1(x)
            x = self.layer2(x)
            x = self.avgpool(x)
            x = torch.flatten(x, 1)
            x = self.fc(x)
            return x

    return ResNet(BasicBlock, [1, 1])


def accuracy(torch, output, target, topk=(1,)):
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)
        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))
        res = []
        for k in topk:
            correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True)
            res.append(correct_k.mul_(100.0 / batch_size))
        return res


def make_data(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 10, n)
    x = rng.standard_normal((n, 3, 32, 32)).astype(np.float32) * 0.5
    for i in range(n):  # a class-dependent bright square
        r, c = divmod(int(y[i]), 5)
        x[i, :, 4 + 12 * r: 10 + 12 * r, 2 + 6 * c: 6 + 6 * c] += 2.0
    return x, y


def run(torch, init=None, seed=0, epochs=3, resume_after=2, shuffle=False, workdir=None):
    nn = torch.nn
    torch.manual_seed(seed)
    torch.backends.cudnn.benchmark = True
    start = {} if init is None else init
    model = build(torch)
    if "model" in start:
        model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in start["model"].items()})
    else:
        start["model"] = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    device = torch.device("cuda") if torch.cuda.is_available() and False else torch.device("cpu")
    model = model.to(device)
    criterion = nn.CrossEntropyLoss().to(device)
    optimizer = torch.optim.SGD(model.parameters(), 0.05, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    xtr, ytr = make_data(96, seed + 1)
    xva, yva = make_data(48, seed + 2)
    train_dataset = torch.utils.data.TensorDataset(torch.from_numpy(xtr), torch.from_numpy(ytr))
    val_dataset = torch.utils.data.TensorDataset(torch.from_numpy(xva), torch.from_numpy(yva))
    train_sampler = None
    train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=16,
                                               shuffle=(train_sampler is None) and shuffle,
                                               num_workers=0, pin_memory=True, sampler=train_sampler)
    val_loader = torch.utils.data.DataLoader(val_dataset, batch_size=16, shuffle=False, num_workers=0, pin_memory=True)
    workdir = workdir or tempfile.mkdtemp()
    os.makedirs(workdir, exist_ok=True)
    losses, val_acc, lines = [], [], []
    best_acc1 = 0

    def save_checkpoint(state, is_best, filename=os.path.join(workdir, 'checkpoint.pth.tar')):
        torch.save(state, filename)
        if is_best:
            shutil.copyfile(filename, os.path.join(workdir, 'model_best.pth.tar'))

    def train(loader, model, criterion, optimizer, epoch):
        batch_time = AverageMeter('Time', ':6.3f')
        data_time = AverageMeter('Data', ':6.3f')
        meter = AverageMeter('Loss', ':.4e')
        top1 = AverageMeter('Acc@1', ':6.2f')
        top5 = AverageMeter('Acc@5', ':6.2f')
        progress = ProgressMeter(len(loader), [batch_time, data_time, meter, top1, top5],
                                 prefix="Epoch: [{}]".format(epoch))
        model.train()
        end = time.time()
        for i, (images, target) in enumerate(loader):
            data_time.update(time.time() - end)
            images = images.to(device, non_blocking=True)
            target = target.to(device, non_blocking=True)
            output = model(images)
            loss = criterion(output, target)
            acc1, acc5 = accuracy(torch, output, target, topk=(1, 5))
            meter.update(loss.item(), images.size(0))
            top1.update(acc1[0], images.size(0))
            top5.update(acc5[0], images.size(0))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            batch_time.update(time.time() - end)
            end = time.time()
            if i % 2 == 0:
                progress.display(i + 1)
        lines.extend(progress.lines)

    def validate(loader, model, criterion):
        top1 = AverageMeter('Acc@1', ':6.2f', Summary.AVERAGE)
        meter = AverageMeter('Loss', ':.4e', Summary.AVERAGE)
        model.eval()
        with torch.no_grad():
            for i, (images, target) in enumerate(loader):
                output = model(images)
                loss = criterion(output, target)
                acc1, acc5 = accuracy(torch, output, target, topk=(1, 5))
                meter.update(loss.item(), images.size(0))
                top1.update(acc1[0], images.size(0))
        return float(top1.avg), meter.avg

    start_epoch = 0
    for epoch in range(start_epoch, resume_after):
        train(train_loader, model, criterion, optimizer, epoch)
        acc1, vloss = validate(val_loader, model, criterion)
        val_acc.append((acc1, vloss))
        scheduler.step()
        is_best = acc1 > best_acc1
        best_acc1 = max(acc1, best_acc1)
        save_checkpoint({'epoch': epoch + 1, 'arch': 'resnet_tiny', 'state_dict': model.state_dict(),
                         'best_acc1': best_acc1, 'optimizer': optimizer.state_dict(),
                         'scheduler': scheduler.state_dict()}, is_best)
    # --resume: a fresh model/optimizer/scheduler read back from the checkpoint
    model = build(torch).to(device)
    optimizer = torch.optim.SGD(model.parameters(), 0.05, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    checkpoint = torch.load(os.path.join(workdir, 'checkpoint.pth.tar'), map_location='cpu')
    start_epoch = checkpoint['epoch']
    best_acc1 = checkpoint['best_acc1']
    if not isinstance(best_acc1, float):
        best_acc1 = best_acc1.to(device)
    model.load_state_dict(checkpoint['state_dict'])
    optimizer.load_state_dict(checkpoint['optimizer'])
    scheduler.load_state_dict(checkpoint['scheduler'])
    lr_after_resume = optimizer.param_groups[0]['lr']
    for epoch in range(start_epoch, epochs):
        train(train_loader, model, criterion, optimizer, epoch)
        acc1, vloss = validate(val_loader, model, criterion)
        val_acc.append((acc1, vloss))
        scheduler.step()
    return dict(init=start, losses=losses, val=val_acc, lines=lines, lr=lr_after_resume,
                best=os.path.exists(os.path.join(workdir, 'model_best.pth.tar')), last_lr=scheduler.get_last_lr())
