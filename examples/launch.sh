#!/bin/bash
#SBATCH --gres=gpu:2
export CUDA_VISIBLE_DEVICES=0,1
nvidia-smi
python pytorch/train.py --device cuda
